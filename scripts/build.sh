#!/usr/bin/env bash
# Configures and builds winml-make (Release) into ./build.
# usage: scripts/build.sh [TARGET...]   (default: everything, tests included)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/configure.sh
configure build -DCMAKE_BUILD_TYPE=Release
if [ $# -gt 0 ]; then
  cmake --build build -j"$(nproc)" --target "$@"
else
  cmake --build build -j"$(nproc)"
fi

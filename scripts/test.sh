#!/usr/bin/env bash
# README command 2: install dependencies, build, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
# The fuzz targets, a bounded and repeatable run (scripts/fuzz.sh for longer ones).
bash scripts/fuzz.sh --ci

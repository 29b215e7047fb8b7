#!/usr/bin/env bash
# Builds the Windows dependency prefix if needed (scripts/windows/deps.sh),
# then the smoke test against it with the toolchain, and runs it under Wine
# through ctest.
# usage: scripts/windows/smoke/run.sh [BUILD_DIR]   (default: build-windows-smoke)
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build-windows-smoke}
scripts/windows/deps.sh
generator=()
[ -f "$build/CMakeCache.txt" ] || ! command -v ninja >/dev/null || generator=(-G Ninja)
cmake -S scripts/windows/smoke -B "$build" "${generator[@]}" \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/scripts/windows/toolchain.cmake" >/dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"

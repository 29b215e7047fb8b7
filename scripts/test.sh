#!/usr/bin/env bash
# README command 2: install dependencies, build, and run the whole test suite
# (CTest, the sanitizer subset, the fuzz targets, then the Windows build's
# tests under Wine).
# usage: scripts/test.sh [CTEST ARGS...]
#        scripts/test.sh --fast [CTEST ARGS...]   the unit tier only: builds its
#        two binaries and runs `ctest -L unit` (in-process, well under a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--fast" ]; then
  shift
  bash scripts/build.sh unit_tests sanitized_unit_tests
  exec ctest --test-dir build -L unit --no-tests=error --output-on-failure -j"$(nproc)" "$@"
fi
# Each phase says how long it took (a CI log's budget at a glance).
phase() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "test.sh: $name took $((SECONDS - start)) s (total $SECONDS s)"
}
phase install-deps bash scripts/install-deps.sh
phase build bash scripts/build.sh
# The sanitize subset (label `<tier>+sanitize`) runs once, in the
# instrumented tree below, except the few scripts/uninstrumented-only.txt
# leaves to this one.
source scripts/configure.sh
phase ctest ctest --test-dir build -LE sanitize --no-tests=error --output-on-failure -j"$(nproc)" "$@"
check_uninstrumented_only build
phase uninstrumented-only ctest --test-dir build -R "$(uninstrumented_only)" \
  --no-tests=error --output-on-failure -j"$(nproc)" "$@"
# The runtime's, compile's and the corpora's tests, built with ASan and
# UBSan; then the fuzz targets in the same instrumented tree, a bounded and
# repeatable run (scripts/fuzz.sh for longer ones).
phase sanitize bash scripts/sanitize.sh
phase fuzz bash scripts/fuzz.sh --ci
# The Windows build, cross-compiled, its tests run under Wine
# (docs/windows.md).
phase windows bash scripts/test-windows.sh

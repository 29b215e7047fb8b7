#!/usr/bin/env bash
# The Windows part of the test suite (scripts/test.sh runs it after the Linux
# part, whose build it needs): cross-builds the Windows programs and the test
# binaries of the unit tier and of the cli tier's tests that rest on the
# platform seam (scripts/build-windows.sh), runs those tiers under Wine
# through winml-make.exe (ctest runs each test executable
# through scripts/windows/wine-run.sh), then checks that the Windows build
# makes the bytes the Linux build makes (scripts/windows/same-bytes.sh).
# usage: scripts/test-windows.sh [CTEST ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
tiers='unit|cli'
targets=(winml-make winml-make-tools winml_ref_ep winml_test_command unit_tests sanitized_unit_tests stop_tests cli_tests)
bash scripts/build-windows.sh "${targets[@]}"
# A kill and the rebuild after it cost about 4 s under Wine: the kill loop
# (tests/cli/cli_kill_loop_test.cpp) kills 10 times here, 50 on Linux.
export WINML_MAKE_KILL_ITERATIONS=${WINML_MAKE_KILL_ITERATIONS:-10}
ctest --test-dir build-windows -L "$tiers" --no-tests=error --output-on-failure -j"$(nproc)" "$@"
# A unit binary runs as one ctest test here (tests/CMakeLists.txt): its own
# counts, from googletest's summary.
awk '/^[0-9]+\/[0-9]+ Testing: /{name=$3; unit = name ~ /unit_tests$/}
     unit && (/^\[==========\] [0-9]+ tests? from .* ran/ || /^\[  (PASSED|SKIPPED) +\] [0-9]+ tests?[.,]/) {
       print "test-windows: " name ": " $0 }' \
  build-windows/Testing/Temporary/LastTest.log
bash scripts/windows/same-bytes.sh

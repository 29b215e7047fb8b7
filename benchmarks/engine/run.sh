#!/usr/bin/env bash
# The engine benchmarks, side by side with their peers (ratios in the output):
#   1. no-op and touch-only builds of 1, 100 and 1000 models vs ninja
#   2. hashing a 1 GiB page-cached file vs `cat FILE > /dev/null`
#   3. clean small builds with persistent workers vs a new worker per stage
# usage: benchmarks/engine/run.sh [BUILD_DIR] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
runs=${2:-11}
/usr/bin/python3 "$here/noop_vs_ninja.py" --winml-make "$build/winml-make" --runs "$runs"
echo
"$build/benchmarks/bench_hash" --runs 7
echo
/usr/bin/python3 "$here/worker_reuse.py" --winml-make "$build/winml-make" --runs "$runs"

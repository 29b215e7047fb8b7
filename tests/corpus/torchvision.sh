#!/usr/bin/env bash
# The torchvision corpus's full sweep: exports every model of
# tests/corpus/torchvision_export.py (random weights, fixed seed, small
# inputs; Debian's python3-torch and python3-torchvision, offline) and builds
# them all in one project with -k, so one model's failure (a crash included:
# stages run in worker processes) leaves the others to finish. Prints one
# table row per model (tests/corpus/torchvision_table.py).
# usage: tests/corpus/torchvision.sh [BUILD_DIR] [WORK_DIR] [NAME...]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=${2:-$(mktemp -d)}
shift $(( $# > 2 ? 2 : $# ))
mkdir -p "$work/models" "$work/project"
/usr/bin/python3 "$root/tests/corpus/torchvision_export.py" "$work/models" "$@" 2>/dev/null | tee "$work/export.txt"
cd "$work/project"
: > winml.toml
for m in "$work"/models/*.onnx; do
  n=$(basename "$m" .onnx)
  ln -sf "$m" "$n.onnx"
  printf '[[model]]\nsource = "%s.onnx"\n' "$n" >> winml.toml
done
WINML_MAKE_CACHE_DIR="$work/cache" "$build/winml-make" -k -j2 --json > report.json 2> build.txt
echo "winml-make exit code: $?"
/usr/bin/python3 "$root/tests/corpus/torchvision_table.py" "$work" "$build"

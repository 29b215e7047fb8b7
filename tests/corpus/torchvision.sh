#!/usr/bin/env bash
# The torchvision corpus's full sweep: exports every model of
# tests/corpus/torchvision_export.py (random weights, fixed seed, small
# inputs; Debian's python3-torch and python3-torchvision, offline) and builds
# them all in one project with -k, so one model's failure (a crash included:
# stages run in worker processes) leaves the others to finish. Prints one
# table row per model: stages completed, seconds, nodes source/optimized.
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
/usr/bin/python3 - "$work" <<'PY'
import json, sys, onnx
work = sys.argv[1]
report = json.load(open(f"{work}/project/report.json"))
def nodes(path):
    try:
        g = onnx.load(path, load_external_data=False).graph
    except Exception:
        return "-"
    def count(g):
        return sum(1 + sum(count(a.g) for a in n.attribute if a.HasField("g")) for n in g.node)
    return count(g)
print("| model | stages completed | failed stage: reason | seconds | nodes source/optimized |")
print("|---|---|---|---|---|")
for m in report["models"]:
    st = m["stages"]
    done = sum(s["status"] in ("completed", "cached", "up-to-date") for s in st)
    failed = [f'{s["name"]}: {s.get("reason", "")[:80]}' for s in st if s["status"] == "failed"]
    secs = sum(s.get("elapsed_seconds", 0) or 0 for s in st)
    n = m["name"]
    print(f'| {n} | {done}/{len(st)} | {"; ".join(failed) or "-"} | {secs:.1f} | '
          f'{nodes(f"{work}/models/{n}.onnx")}/{nodes(f"{work}/project/build/{n}/optimized.onnx")} |')
PY

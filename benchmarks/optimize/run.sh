#!/usr/bin/env bash
# The optimize stage side by side with ONNX Runtime's offline optimizer
# (onnxruntime-node, session creation with optimizedModelFilePath), in one run:
#   1. time: `winml-make optimize --level basic` (whole process: load, optimize,
#      save) vs ORT's session_ms at graphOptimizationLevel 'basic' (load,
#      optimize, write the optimized model), median of RUNS each, and the ratio;
#   2. node counts (all graphs) of the original, ours at basic and extended
#      (target EP cpu), and ORT's optimized models at basic and extended.
# usage: benchmarks/optimize/run.sh [BUILD_DIR] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
build=$(cd "${1:-$root/build}" && pwd)
runs=${2:-5}
bin=$build/winml-make
source "$here/../common/test_models.sh"
models_dir=$(test_models_dir "$build")
export NODE_PATH=$build/ort-node/node_modules
[ -x "$bin" ] || { echo "build winml-make first ($bin)" >&2; exit 1; }
[ -d "$NODE_PATH/onnxruntime-node" ] || bash "$root/tests/ort/install.sh" "$build/ort-node"
timed_models=(resnet50_op13 vit_b_16_op13)
count_models=(resnet50_op13 resnet50_op17 vit_b_16_op13 vit_b_16_op17 transformer_encoder_op13
              transformer_encoder_op17 mobilenet_v2_op13 mobilenet_v3_small_op13 mobilenet_v3_small_op17
              efficientnet_b0_op13)
/usr/bin/python3 "$root/tests/fixtures/export_models.py" --out "$models_dir" "${count_models[@]}" >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
now_ms() { date +%s%N | awk '{printf "%.3f", $1 / 1e6}'; }
# Counted with the onnx Python package (independent of winml-make); ORT's
# optimized models point at the original external data, which is not needed here.
nodes() {
  /usr/bin/python3 -c '
import sys, onnx
def count(g): return sum(1 + sum(count(a.g) + sum(count(s) for s in a.graphs) for a in n.attribute) for n in g.node)
print(count(onnx.load(sys.argv[1], load_external_data=False).graph))' "$1"
}

echo "== optimize time, level basic (median of $runs, page cache warm) =="
printf "%-26s %12s %12s %14s %8s\n" model "winml (ms)" "passes (ms)" "ORT basic (ms)" ratio
for m in "${timed_models[@]}"; do
  src=$models_dir/$m.onnx
  cat "$src" "$src".data >/dev/null 2>&1 || true
  ours=() passes=() ort=()
  for _ in $(seq "$runs"); do
    t0=$(now_ms)
    "$bin" optimize -m "$src" -o "$out/ours.onnx" --level basic --json >"$out/report.json"
    t1=$(now_ms)
    ours+=("$(awk "BEGIN{print $t1 - $t0}")")
    passes+=("$(/usr/bin/python3 -c 'import json,sys; print(1000*sum(json.load(open(sys.argv[1]))["seconds"].values()))' "$out/report.json")")
    ort+=("$(node "$root/tests/ort/ort_run.js" --model "$src" --opt-level basic --optimized-model "$out/ort.onnx" --json |
             /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["session_ms"])')")
  done
  o=$(printf "%s\n" "${ours[@]}" | median)
  p=$(printf "%s\n" "${passes[@]}" | median)
  r=$(printf "%s\n" "${ort[@]}" | median)
  printf "%-26s %12.1f %12.1f %14.1f %7.2fx\n" "$m" "$o" "$p" "$r" "$(awk "BEGIN{print $o / $r}")"
done

echo
echo "== node counts (all graphs) =="
printf "%-26s %9s %11s %14s %11s %14s\n" model original "winml basic" "winml extended" "ORT basic" "ORT extended"
for m in "${count_models[@]}"; do
  src=$models_dir/$m.onnx
  "$bin" optimize -m "$src" -o "$out/b.onnx" --level basic >/dev/null
  "$bin" optimize -m "$src" -o "$out/e.onnx" --level extended --ep cpu >/dev/null
  node "$root/tests/ort/ort_run.js" --model "$src" --opt-level basic --optimized-model "$out/ob.onnx" >/dev/null
  node "$root/tests/ort/ort_run.js" --model "$src" --opt-level extended --optimized-model "$out/oe.onnx" >/dev/null
  printf "%-26s %9s %11s %14s %11s %14s\n" "$m" "$(nodes "$src")" "$(nodes "$out/b.onnx")" "$(nodes "$out/e.onnx")" \
    "$(nodes "$out/ob.onnx")" "$(nodes "$out/oe.onnx")"
  rm -f "$out"/*.onnx "$out"/*.data
done

#!/usr/bin/env bash
# Time to a ready-to-run session: ref-compiled model vs the uncompiled model in
# the runtime, side by side in one process (ResNet-50, ViT-B/16 at opsets 13
# and 17). Prints medians and ratios (goal: >= 5x for the sidecar form).
# usage: benchmarks/compile/run.sh [BUILD_DIR] [REPS] [--first-run]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
reps=${2:-15}
models=(resnet50_op13 vit_b_16_op13 vit_b_16_op17)
paths=()
for m in "${models[@]}"; do
  [ -f "$build/test-models/$m.onnx" ] ||
    /usr/bin/python3 "$here/../../tests/fixtures/export_models.py" --out "$build/test-models" "$m"
  paths+=("$build/test-models/$m.onnx")
done
"$build/benchmarks/bench_compile_load" --reps "$reps" "${@:3}" "${paths[@]}"

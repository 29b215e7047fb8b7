#!/usr/bin/env bash
# Time to a ready-to-run session: ref-compiled model vs the uncompiled model in
# the runtime, side by side in one process (ResNet-50, ViT-B/16 at opsets 13
# and 17), then the same through ONNX Runtime with the `ref` plugin EP
# (ort_sessions.py: compile time through ORT's compile API, session times),
# when the build has the plugin and the harness. Prints medians and ratios
# (goal: >= 5x, embedded and sidecar).
# usage: benchmarks/compile/run.sh [BUILD_DIR] [REPS] [--first-run]
#   ORT_LIBRARY=...  the libonnxruntime for the ORT part (default: the build's 1.29.0)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
reps=${2:-15}
models=(resnet50_op13 vit_b_16_op13 vit_b_16_op17)
source "$here/../common/test_models.sh"
models_dir=$(test_models_dir "$build")
paths=()
for m in "${models[@]}"; do
  [ -f "$models_dir/$m.onnx" ] ||
    /usr/bin/python3 "$here/../../tests/fixtures/export_models.py" --out "$models_dir" "$m"
  paths+=("$models_dir/$m.onnx")
done
"$build/benchmarks/bench_compile_load" --reps "$reps" "${@:3}" "${paths[@]}"

harness=$build/tests/ort_harness
plugin=$build/libwinml_ref_ep.so
ort=${ORT_LIBRARY:-$(sed -n 's/^WINML_ORT_LIBRARY_1_29:FILEPATH=//p' "$build/CMakeCache.txt")}
if [ -x "$harness" ] && [ -f "$plugin" ] && [ -f "$ort" ]; then
  echo
  /usr/bin/python3 "$here/ort_sessions.py" "$harness" "$plugin" "$ort" "$reps" "${paths[@]}"
else
  echo "(skipping ONNX Runtime: build the targets ort_harness and winml_ref_ep)"
fi

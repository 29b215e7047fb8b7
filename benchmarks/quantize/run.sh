#!/usr/bin/env bash
# Calibration throughput of `winml-make quantize` (the project runtime with an
# observer collecting range statistics and channel means for every calibrated
# tensor) vs plain inference throughput of onnxruntime-node on the same model
# and the same input, side by side with the same thread count. Prints
# samples/s for both and the ratio.
# usage: benchmarks/quantize/run.sh [BUILD_DIR] [SAMPLES] [THREADS] [METHOD]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
samples=${2:-16}
threads=${3:-2}
method=${4:-minmax}
model=$build/test-models/resnet50_op13.onnx
[ -f "$model" ] || /usr/bin/python3 "$here/../../tests/fixtures/export_models.py" --out "$build/test-models" resnet50_op13
[ -d "$build/ort-node/node_modules/onnxruntime-node" ] || bash "$here/../../tests/ort/install.sh" "$build/ort-node"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ours=$("$build/benchmarks/bench_calibration" "$model" "$samples" "$threads" "$work/in" int8 uint8 "$method")
ort=$(NODE_PATH="$build/ort-node/node_modules" node "$here/../../tests/ort/ort_run.js" --model "$model" \
      --inputs "$work/in" --opt-level all --threads "$threads" --repeat "$samples" --json)

ours_sps=$(echo "$ours" | sed -E 's/.*"samples_per_second":([0-9.eE+-]+).*/\1/')
rt_sps=$(echo "$ours" | sed -E 's/.*"runtime_inference_samples_per_second":([0-9.eE+-]+).*/\1/')
ort_ms=$(echo "$ort" | sed -E 's/.*"median_ms":([0-9.eE+-]+).*/\1/')
ort_sps=$(awk "BEGIN{print 1000/$ort_ms}")
printf "model: %s, %s samples, %s threads, calibration method %s\n" "$(basename "$model")" "$samples" "$threads" "$method"
printf "%-44s %10s\n" "" "samples/s"
printf "%-44s %10.2f\n" "winml-make calibration (runtime + statistics)" "$ours_sps"
printf "%-44s %10.2f\n" "  (winml runtime inference alone)" "$rt_sps"
printf "%-44s %10.2f\n" "onnxruntime-node inference (opt level all)" "$ort_sps"
printf "ratio (calibration / ORT inference): %.2f\n" "$(awk "BEGIN{print $ours_sps/$ort_sps}")"

#!/usr/bin/env bash
# Calibration throughput of `winml-make quantize` (the project runtime with an
# observer collecting range statistics and channel means for every calibrated
# tensor) vs plain inference throughput of onnxruntime-node on the same model
# and the same input, side by side with the same thread count. Each round runs
# both back to back; the ratio is reported per round and as the median, so a
# busy machine shows up as spread instead of a misleading single number.
# Calibration's time includes building its plan (packing the weights) once;
# ORT's per-run median leaves out creating its session, so a second ratio
# ("steady") leaves the plan out too.
# usage: benchmarks/quantize/run.sh [BUILD_DIR] [SAMPLES] [THREADS] [ROUNDS] [METHOD]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
samples=${2:-16}
threads=${3:-2}
rounds=${4:-3}
method=${5:-minmax}
source "$here/../common/test_models.sh"
models=$(test_models_dir "$build")
model=$models/resnet50_op13.onnx
[ -f "$model" ] || /usr/bin/python3 "$here/../../tests/fixtures/export_models.py" --out "$models" resnet50_op13
[ -d "$build/ort-node/node_modules/onnxruntime-node" ] || bash "$here/../../tests/ort/install.sh" "$build/ort-node"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

field() { echo "$1" | sed -E "s/.*\"$2\":([0-9.eE+-]+).*/\\1/"; }

printf "model: %s, %s samples, %s threads, calibration method %s, %s rounds\n" \
  "$(basename "$model")" "$samples" "$threads" "$method" "$rounds"
printf "%-6s %22s %10s %22s %22s %8s %8s\n" "round" "calibration samples/s" "plan (s)" "runtime alone samp/s" \
  "ORT inference samp/s" "ratio" "steady"
ratios=()
steady_ratios=()
for r in $(seq "$rounds"); do
  ours=$("$build/benchmarks/bench_calibration" "$model" "$samples" "$threads" "$work/in" int8 uint8 "$method")
  ort=$(NODE_PATH="$build/ort-node/node_modules" node "$here/../../tests/ort/ort_run.js" --model "$model" \
        --inputs "$work/in" --opt-level all --threads "$threads" --repeat "$samples" --json)
  cal=$(field "$ours" samples_per_second)
  steady=$(field "$ours" steady_samples_per_second)
  plan=$(field "$ours" setup_seconds)
  alone=$(field "$ours" runtime_inference_samples_per_second)
  ort_sps=$(awk "BEGIN{print 1000/$(field "$ort" median_ms)}")
  ratio=$(awk "BEGIN{printf \"%.2f\", $cal/$ort_sps}")
  steady_ratio=$(awk "BEGIN{printf \"%.2f\", $steady/$ort_sps}")
  ratios+=("$ratio")
  steady_ratios+=("$steady_ratio")
  printf "%-6s %22.2f %10.3f %22.2f %22.2f %8s %8s\n" "$r" "$cal" "$plan" "$alone" "$ort_sps" "$ratio" "$steady_ratio"
done
median() { printf "%s\n" "$@" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo "median ratio (calibration / ORT inference): $(median "${ratios[@]}")"
echo "median ratio without calibration's plan, as ORT's runs are without its session (steady): $(median "${steady_ratios[@]}")"

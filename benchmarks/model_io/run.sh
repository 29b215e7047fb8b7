#!/usr/bin/env bash
# Load + save of ViT-B/16 (~330 MiB of external data): winml-make's model I/O vs
# Python onnx 1.12 (onnx.load + onnx.save_model(save_as_external_data=True)),
# side by side, page cache warm, best of N runs each. Prints wall time, peak RSS
# and the ratios.
# usage: benchmarks/model_io/run.sh [BUILD_DIR] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
runs=${2:-3}
source "$here/../common/test_models.sh"
models=$(test_models_dir "$build")
model=$models/vit_b_16_op17.onnx
[ -f "$model" ] || /usr/bin/python3 "$here/../../tests/fixtures/export_models.py" --out "$models" vit_b_16_op17
size=$(( $(stat -c %s "$model") + $(stat -c %s "$model.data") ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat "$model" "$model.data" >/dev/null  # warm the page cache for both

measure() {  # prints "seconds max_rss_kb", best time of $runs
  local best_t="" best_m=""
  for _ in $(seq "$runs"); do
    rm -f "$out"/*
    local line
    line=$( { /usr/bin/time -f "RSS %M" "$@" 2>&1 1>&3 | grep RSS; } 3>&1 )
    local t m
    t=$(echo "$line" | head -1)
    m=$(echo "$line" | awk '/RSS/ {print $2}')
    if [ -z "$best_t" ] || awk "BEGIN{exit !($t < $best_t)}"; then best_t=$t; best_m=$m; fi
  done
  echo "$best_t $best_m"
}

read -r w_t w_m < <(measure "$build/benchmarks/bench_model_io" "$model" "$out/out.onnx")
read -r p_t p_m < <(measure /usr/bin/python3 "$here/onnx_python_io.py" "$model" "$out/out.onnx")
size_mib=$(awk "BEGIN{printf \"%.1f\", $size/1048576}")
printf "model: %s (%s MiB incl. external data)\n" "$(basename "$model")" "$size_mib"
printf "%-22s %10s %14s %12s\n" "" "time (s)" "peak RSS (MiB)" "RSS/model"
printf "%-22s %10.3f %14.1f %12.2f\n" "winml-make model I/O" "$w_t" "$(awk "BEGIN{print $w_m/1024}")" "$(awk "BEGIN{print $w_m*1024/$size}")"
printf "%-22s %10.3f %14.1f %12.2f\n" "python onnx 1.12" "$p_t" "$(awk "BEGIN{print $p_m/1024}")" "$(awk "BEGIN{print $p_m*1024/$size}")"
printf "ratio (winml/onnx): time %.2fx, peak RSS %.2fx\n" "$(awk "BEGIN{print $w_t/$p_t}")" "$(awk "BEGIN{print $w_m/$p_m}")"

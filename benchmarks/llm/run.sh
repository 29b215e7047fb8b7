#!/usr/bin/env bash
# Language-model scale: decoders of about 3 and 9 GiB of float32 weights
# (tests/fixtures/decoder_model.py, random weights) built through every stage
# by winml-make, in weight-only int4 (MatMulNBits, block 32, symmetric RTN)
# and in w8a8 (the [quantize] defaults: int8 weights per tensor, uint8
# activations, 4 calibration samples), for ep = "cpu". For each stage: wall
# time, peak RSS and its ratio to the weights' bytes (stage_memory.py: the
# stage's worker process plus winml-make itself, whose peak is reset when the
# stage starts; -j 1 runs one stage at a time, so that each worker is one
# stage's); then `winml-make run` on model.onnx; and,
# as the peer, `cp` of the weights file in the same run. Builds use no cache
# (--no-cache): every stage runs.
#
# Accuracy on the 3 GiB decoder: the int4 model's logits SQNR against the
# float model, beside the same RTN computed independently
# (tests/fixtures/rtn_reference.py, NumPy) with ONNX Runtime running both,
# on the same tokens.
#
# usage: benchmarks/llm/run.sh [BUILD_DIR] [SIZES] [MODES]
#   SIZES: "3 9" (default), MODES: "int4 w8a8" (default)
# WINML_LLM_BENCH_DIR: where models and builds go (default /work/tmp-llm-bench;
# the 9 GiB decoder needs about 40 GiB free).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
build=$(cd "${1:-$root/build}" && pwd)
sizes=${2:-"3 9"}
modes=${3:-"int4 w8a8"}
work=${WINML_LLM_BENCH_DIR:-/work/tmp-llm-bench}
bin=$build/winml-make
mkdir -p "$work"
[ -d "$build/ort-node/node_modules/onnxruntime-node" ] || bash "$root/tests/ort/install.sh" "$build/ort-node"

preset() {  # the decoder of about $1 GiB
  case $1 in
    3) echo "--layers 12 --hidden 2048 --ffn 5632 --heads 16 --vocab 32000" ;;  # 2.79 GiB, as in issue 37
    9) echo "--layers 11 --hidden 4096 --ffn 11008 --heads 32 --vocab 32000" ;;  # 9.27 GiB
    *) echo "--layers 2 --hidden 512 --ffn 1376 --heads 8 --vocab 32000" ;;
  esac
}

mib() { echo $(( $1 / 1048576 )); }
field() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

for size in $sizes; do
  model=$work/decoder_${size}g.onnx
  if [ ! -f "$model" ]; then
    echo "generating $model ($(df -h --output=avail "$work" | tail -1 | tr -d ' ') free)"
    /usr/bin/python3 "$root/tests/fixtures/decoder_model.py" "$model" $(preset "$size")
  fi
  weights=$(stat -c %s "$model.data")
  sync
  start=$(date +%s.%N)
  cp "$model.data" "$work/cp_probe.data" && sync
  cp_seconds=$(echo "$(date +%s.%N) - $start" | bc)
  rm -f "$work/cp_probe.data"
  printf "\n== decoder %s: %s MiB of weights; cp of the weights: %.1f s\n" "$size" "$(mib "$weights")" "$cp_seconds"

  for mode in $modes; do
    project=$work/project_${size}g_$mode
    rm -rf "$project"
    mkdir -p "$project"
    ln "$model" "$project/decoder.onnx"
    ln "$model.data" "$project/$(basename "$model").data"
    case $mode in
      int4) quantize='mode = "matmulnbits"' ;;
      w8a8) quantize='' ;;
    esac
    cat > "$project/winml.toml" <<EOF
[model]
source = "decoder.onnx"
dims = { batch_size = 1, sequence_length = 1 }
[quantize]
$quantize
samples = 4
[compile]
ep = "cpu"
EOF
    sync
    /usr/bin/python3 "$here/stage_memory.py" "$bin" --no-cache -j 1 -C "$project" > "$project/stages.json" 2> "$project/build.log" || {
      echo "build failed: $project/build.log"; tail -20 "$project/build.log"; exit 1; }
    /usr/bin/python3 "$here/stage_memory.py" "$bin" run -m "$project/build/decoder/model.onnx" \
      --dim batch_size=1 --dim sequence_length=1 > "$project/run.json" 2> "$project/run.log"
    printf "%-8s %-10s %10s %12s %10s %12s %12s\n" "$mode" "stage" "wall (s)" "peak RSS MiB" "RSS/weights" \
      "worker MiB" "parent MiB"
    for stage in export optimize analyze quantize compile package; do
      line=$(field "$project/stages.json" "d['stages'].get('$stage')") || true
      [ "$line" = "None" ] && continue
      s=$(field "$project/stages.json" "d['stages']['$stage']['seconds']")
      r=$(field "$project/stages.json" "d['stages']['$stage']['peak_rss_bytes']")
      w=$(field "$project/stages.json" "d['stages']['$stage']['worker_peak_rss_bytes']")
      p=$(field "$project/stages.json" "d['stages']['$stage']['parent_peak_rss_bytes']")
      printf "%-8s %-10s %10.1f %12s %10.2f %12s %12s\n" "" "$stage" "$s" "$(mib "$r")" "$(echo "$r / $weights" | bc -l)" \
        "$(mib "$w")" "$(mib "$p")"
    done
    total=$(field "$project/stages.json" "d['wall_seconds']")
    peak=$(field "$project/stages.json" "d['peak_rss_bytes']")
    printf "%-8s %-10s %10.1f %12s %10.2f\n" "" "build" "$total" "$(mib "$peak")" "$(echo "$peak / $weights" | bc -l)"
    # The kernel's exact maximum over winml-make and every worker: above the
    # largest stage's worker, a peak fell between stage_memory.py's readings.
    exact=$(field "$project/stages.json" "d['children_max_rss_bytes']")
    printf "%-8s %-10s %10s %12s %10.2f\n" "" "(exact max)" "" "$(mib "$exact")" "$(echo "$exact / $weights" | bc -l)"
    rs=$(field "$project/run.json" "d['wall_seconds']")
    rr=$(field "$project/run.json" "d['peak_rss_bytes']")
    printf "%-8s %-10s %10.1f %12s %10.2f\n" "" "run" "$rs" "$(mib "$rr")" "$(echo "$rr / $weights" | bc -l)"
    printf "%-8s %s\n" "" "build: $(echo "$total / ($weights / 1073741824)" | bc -l | cut -c1-5) s per GiB (issue 37's baseline: 11.4 s per GiB); cp: $(echo "$cp_seconds / ($weights / 1073741824)" | bc -l | cut -c1-5) s per GiB"
    grep -o '"sqnr_db":[^,}]*' "$project/build/decoder/build_manifest.json" | head -1 | sed "s/^/         quantize report logits /"

    if [ "$size" = 3 ] && [ "$mode" = int4 ]; then
      /usr/bin/python3 "$here/rtn_accuracy.py" "$build" "$model" "$project/build/decoder/model.onnx" "$project" \
        | sed "s/^/         /"
    fi
    # Keep the source; drop the build (tens of GiB at 9 GiB).
    rm -rf "$project"
  done
done

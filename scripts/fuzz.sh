#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan, UBSan) into
# build-sanitize (the instrumented build scripts/sanitize.sh also uses),
# seeds each corpus from real inputs, and runs every target for
# SECONDS (default 60). Exits non-zero when a target finds a crash, a leak,
# a hang (> 10 s on one input) or an allocation beyond 1 GiB; the input is
# saved in build-sanitize/crashes/<target>/ for replay:
#   build-sanitize/tests/fuzz/<target> build-sanitize/crashes/<target>/crash-...
# Seeds: the repository's configs, libonnx-testdata's models, small models
# with external data, and what a real build of examples/quickstart writes
# (its ref blob, state, ingredient log and cache entries); so the main
# build (scripts/build.sh) must exist.
# usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#        scripts/fuzz.sh --ci     (what scripts/test.sh runs: a fixed random
#                                  seed and a fixed number of inputs per
#                                  target, so that a run is repeatable)
set -euo pipefail
cd "$(dirname "$0")/.."
ci=0
if [ "${1:-}" = --ci ]; then ci=1; shift; fi
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_config fuzz_model fuzz_tensor_file fuzz_ref_blob fuzz_records)
root=$PWD
out=$root/build-sanitize

source scripts/configure.sh
CC=clang CXX=clang++ configure "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWINML_SANITIZE=ON
cmake --build "$out" -j"$(nproc)" --target "${targets[@]}"

seeds=$out/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{fuzz_config,fuzz_model,fuzz_tensor_file,fuzz_ref_blob,fuzz_records}

# Configs: every TOML file the repository ships.
i=0
while IFS= read -r f; do cp "$f" "$seeds/fuzz_config/$((i++)).toml"; done < <(
  find examples -name '*.toml'; echo winml.toml.example; find rules -name '*.toml')

# Models: "<4-byte length><model><model.onnx.data>", as fuzz_model.cpp reads;
# calibration samples: "<0>.npy" or "<1>.pb", as fuzz_tensor_file.cpp reads.
/usr/bin/python3 - "$seeds/fuzz_model" "$seeds/fuzz_tensor_file" <<'EOF'
import glob, os, struct, sys, tempfile
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

dest = sys.argv[1]
def add(name, model_bytes, data=b""):
    with open(os.path.join(dest, name), "wb") as f:
        f.write(struct.pack("<I", len(model_bytes)) + model_bytes + data)

models = sorted(glob.glob("/usr/share/libonnx-testdata/data/**/model.onnx", recursive=True))
for i, path in enumerate(models[::8]):  # a spread of operators, control flow included
    add(f"testdata{i}", open(path, "rb").read())
# External data: tensors in model.onnx.data, at offsets, as the tool writes them.
for n, shape in enumerate([(4, 3), (16, 16), (2, 3, 5)]):
    w = numpy_helper.from_array(np.arange(np.prod(shape), dtype=np.float32).reshape(shape), "W")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))
    g = helper.make_graph([helper.make_node("Add", ["x", "W"], ["y"])], "g", [x], [y], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    with tempfile.TemporaryDirectory() as d:
        onnx.save_model(m, os.path.join(d, "model.onnx"), save_as_external_data=True,
                        location="model.onnx.data", size_threshold=0)
        add(f"external{n}", open(os.path.join(d, "model.onnx"), "rb").read(),
            open(os.path.join(d, "model.onnx.data"), "rb").read())
samples = sys.argv[2]
for n, (dtype, shape) in enumerate([(np.float32, (1, 3, 4, 4)), (np.int64, (2, 5)), (np.uint8, ()), (np.float16, (7,))]):
    a = (np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape)
    with tempfile.TemporaryDirectory() as d:
        np.save(os.path.join(d, "x.npy"), a)
        open(os.path.join(samples, f"npy{n}"), "wb").write(b"\0" + open(os.path.join(d, "x.npy"), "rb").read())
    open(os.path.join(samples, f"pb{n}"), "wb").write(b"\1" + numpy_helper.from_array(a, "x").SerializeToString())
EOF

# A real build: its ref blob, state files and cache entries.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r examples/quickstart "$work/project"
rm -rf "$work/project/build"
WINML_MAKE_CACHE_DIR=$work/cache "$root/build/winml-make" -C "$work/project" >/dev/null
for f in "$work"/project/build/quickstart/*.bin; do
  { printf '\0'; cat "$f"; } > "$seeds/fuzz_ref_blob/$(basename "$f").raw"
  { printf '\1'; cat "$f"; } > "$seeds/fuzz_ref_blob/$(basename "$f").sealed"
done
# The record formats without their checksums (fuzz_records.cpp adds them);
# the first byte picks the parser. The snapshot image goes without its
# header's first 40 bytes (fuzz_records.cpp writes them); an earlier
# version's text snapshot, and a journal, are written here.
strip() { cut -c18- "$1"; }
{ printf '\5'; tail -c +41 "$work/project/build/.winml-make/state"; } > "$seeds/fuzz_records/state_image"
text_records() {  # $1: the header's magic
  printf 'H\t%s\t1\t0\n' "$1"
  printf 'N\tm/export\t%032x\twinml-export\t0.5\t7\t{"a":1}\t1\texport.onnx\t%032x\t10\n' 1 2
  printf 'S\t%032x\t1\texport.onnx.data\n' 3
}
{ printf '\0'; text_records winml-make-state; printf 'F\tm/x\t1\t2\t3\t4\t5\t%032x\t6\n' 4; } > "$seeds/fuzz_records/state"
{ printf '\1'; text_records winml-make-journal; printf 'D\tm/export\n'; } > "$seeds/fuzz_records/journal"
{ printf '\2'; strip "$work/project/build/.winml-make/ingredients"; } > "$seeds/fuzz_records/ingredients"
i=0
for f in $(find "$work/cache/ac" -type f | head -8); do
  { printf '\3'; strip "$f"; } > "$seeds/fuzz_records/entry$((i++))"
done

# fuzz_one TARGET: one target's run; prints its line, returns non-zero on a finding.
fuzz_one() {
  local t=$1
  local corpus=$out/corpus/$t crashes=$out/crashes/$t log=$out/$t.log max_len=65536 n
  mkdir -p "$corpus" "$crashes"
  [ "$t" != fuzz_ref_blob ] || max_len=1048576  # the seed blobs are ~320 KB
  local budget=(-max_total_time="$seconds")
  if ((ci)); then
    rm -rf "$corpus"; mkdir -p "$corpus"
    # About 15 s each on a 2-core CI machine: a smoke test of every target
    # (scripts/fuzz.sh without --ci searches for as long as it is given).
    case $t in
      fuzz_config) n=2500 ;;
      fuzz_model) n=20000 ;;
      fuzz_tensor_file) n=20000 ;;
      fuzz_ref_blob) n=15000 ;;
      *) n=30000 ;;
    esac
    budget=(-runs=$n -seed=1)
  fi
  if ! "$out/tests/fuzz/$t" "$corpus" "$seeds/$t" "${budget[@]}" -timeout=10 \
      -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=$max_len -print_final_stats=1 \
      -artifact_prefix="$crashes/" >"$log" 2>&1; then
    echo "fuzz: $t FAILED; see $log and $crashes/"
    grep -m5 -E "ERROR|SUMMARY|==[0-9]+==" "$log" || tail -20 "$log"
    return 1
  fi
  local runs cov took
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 || true)
  took=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -oE '[0-9]+ second' || echo "$seconds second")
  echo "fuzz: $t: $runs inputs in ${took}s, $cov, 0 crashes"
}

# Each target is one process on one core: as many at once as there are
# cores, the longest (the ref blob's) first.
ordered=()
for t in "${targets[@]}"; do [ "$t" != fuzz_ref_blob ] || ordered+=("$t"); done
for t in "${targets[@]}"; do [ "$t" = fuzz_ref_blob ] || ordered+=("$t"); done
status=0
running=0
for t in "${ordered[@]}"; do
  if ((running >= $(nproc))); then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || status=1
  running=$((running - 1))
done
exit $status

#!/usr/bin/env bash
# The Windows build makes the bytes the Linux build makes: the same projects
# built by build/winml-make (Linux) and by build-windows/winml-make.exe
# (under Wine), with no cache, then every artifact compared byte for byte
# (build_manifest.json aside: it records times and each binary's own keys).
#
#   quickstart    examples/quickstart, as it is
#   multi-model   examples/multi-model's three models and per-model settings;
#                 exported once by the Linux build with PyTorch (a Linux
#                 program, which Wine cannot wait for), then imported by
#                 both builds (`source` instead of [model.export])
#   ppocr_cls     a pretrained model of the npm corpus (opset 9 CNN)
#   quickstart-ort  the quickstart compiled through ONNX Runtime 1.29 ([compile]
#                 backend = "ort") with the `ref` plugin EP: ORT's Linux
#                 library and libwinml_ref_ep.so, ORT's Windows DLL and
#                 winml_ref_ep.dll
#
# All of it below a folder named "ünï 模型".
# Prints one line per project and file count; exit 1 naming each file that
# differs. usage: scripts/windows/same-bytes.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
linux=$root/build/winml-make
windows=$root/build-windows/winml-make.exe
# (ONNX Runtime's Windows DLLs are in the same cache as the Linux libraries.)
ort_cache=${WINML_ORT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/winml-make/ort}
run_windows() { WINML_ORT_CACHE=$ort_cache bash "$root/scripts/windows/wine-run.sh" "$windows" "$@"; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Every project lives below a folder whose name is not ASCII (accented Latin
# and CJK): paths are UTF-8 inside winml-make and wide at Windows' API.
work="$scratch/ünï 模型"
mkdir -p "$work"

# compare NAME DIR_A DIR_B: every file below the two output folders.
status=0
compare() {
  local name=$1 a=$2 b=$3
  local list_a list_b
  list_a=$(cd "$a" && find . -type f -not -path './.winml-make/*' -not -name build_manifest.json | sort)
  list_b=$(cd "$b" && find . -type f -not -path './.winml-make/*' -not -name build_manifest.json | sort)
  if [ "$list_a" != "$list_b" ]; then
    echo "same-bytes: $name: the two builds made different files:" >&2
    diff <(echo "$list_a") <(echo "$list_b") >&2 || true
    status=1
    return
  fi
  local n=0 differ=0
  while read -r f; do
    n=$((n + 1))
    if ! cmp -s "$a/$f" "$b/$f"; then
      echo "same-bytes: $name: $f differs" >&2
      differ=$((differ + 1))
    fi
  done <<<"$list_a"
  [ $differ -eq 0 ] || status=1
  echo "same-bytes: $name: $n files, $differ differ"
}

# build NAME SOURCE_DIR: copies the project twice, builds each copy with one
# binary, the two at once (a Wine build waits on wineserver a good part of
# its time).
build_both() {
  local name=$1 src=$2 linux_build
  cp -r "$src" "$work/$name-linux"
  cp -r "$src" "$work/$name-windows"
  rm -rf "$work/$name-linux/build" "$work/$name-windows/build"
  (cd "$work/$name-linux" && "$linux" --no-cache -j2 >/dev/null) &
  linux_build=$!
  (cd "$work/$name-windows" && run_windows --no-cache -j2 >/dev/null)
  wait "$linux_build"
  compare "$name" "$work/$name-linux/build" "$work/$name-windows/build"
}

build_both quickstart examples/quickstart

# multi-model: PyTorch's exports, then both builds import them.
cp -r examples/multi-model "$work/mm-export"
rm -rf "$work/mm-export/build"
(cd "$work/mm-export" && "$linux" --no-cache -j2 --no-quant --no-compile >/dev/null)
mkdir -p "$work/mm/exports"
for d in "$work/mm-export/build"/*/; do
  name=$(basename "$d")
  cp "$d/export.onnx" "$work/mm/exports/$name.onnx"
  [ ! -f "$d/export.onnx.data" ] || cp "$d/export.onnx.data" "$work/mm/exports/$name.onnx.data"
done
/usr/bin/python3 - "$work/mm-export/winml.toml" "$work/mm/winml.toml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# Each [[model]]'s [model.export] table becomes `source`, the exported model.
text = re.sub(r'name = "([^"]+)"\n\[model\.export\]\ntorchvision = "[^"]+"\n',
              lambda m: f'name = "{m[1]}"\nsource = "exports/{m[1]}.onnx"\n', text)
assert "[model.export]" not in text, "examples/multi-model changed: update scripts/windows/same-bytes.sh"
open(sys.argv[2], "w").write(text)
PY
build_both multi-model "$work/mm"

corpus=${WINML_CORPUS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/winml-make/corpus}
mkdir -p "$work/ppocr"
cp "$corpus/models/ppocr_cls.onnx" "$work/ppocr/model.onnx"
cat >"$work/ppocr/winml.toml" <<'TOML'
[model]
name = "ppocr_cls"
source = "model.onnx"
dims = { "p2o.DynamicDimension.0" = 1, "p2o.DynamicDimension.1" = 48, "p2o.DynamicDimension.2" = 192 }
[compile]
ep = "ref"
TOML
build_both ppocr_cls "$work/ppocr"

cp -r examples/quickstart "$work/qs-ort"
rm -rf "$work/qs-ort/build"
printf 'backend = "ort"\n' >>"$work/qs-ort/winml.toml"  # (the file ends in [compile])
grep -q '^\[compile\]' "$work/qs-ort/winml.toml"
build_both quickstart-ort "$work/qs-ort"
exit $status

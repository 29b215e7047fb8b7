#!/usr/bin/env bash
# Fetches ONNX Runtime's C API headers and its Linux x64 and Windows x64
# libraries from npm, pinned by version and integrity, into a cache outside
# the repository:
#
#   $CACHE/1.29.0/include/   onnxruntime_c_api.h, onnxruntime_ep_c_api.h, ... (ORT_API_VERSION 29)
#   $CACHE/1.29.0/lib/       libonnxruntime.so, libonnxruntime.so.1 -> libonnxruntime.so
#   $CACHE/1.29.0/win-x64/   onnxruntime.dll, onnxruntime_providers_shared.dll
#   $CACHE/1.30.0/lib/       libonnxruntime.so.1, libonnxruntime.so -> libonnxruntime.so.1
#   $CACHE/1.30.0/win-x64/   onnxruntime.dll
#
# CACHE is $WINML_ORT_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/winml-make/ort.
# The build compiles against the 1.29.0 headers (CMake's WINML_ORT_DIR) and
# the `ort` compile backend loads 1.29.0's library by default; 1.30.0 is the
# newer library the tests swap in. The Windows build (scripts/windows/) loads
# the DLLs of win-x64/. They need the MSVC runtime (MSVCP140, VCRUNTIME140),
# which Windows and Wine provide; 1.30.0's DirectML.dll is not taken (it is
# loaded only by the DirectML execution provider, which is never asked for).
#
# Idempotent: a version whose directory is complete (its .integrity file holds
# the pinned integrity and the layout below) is not fetched again; a directory
# of an earlier layout (one without win-x64/) is fetched again. Only the files listed are
# unpacked; the tarball `npm pack` downloads is checked against the pin and
# then deleted. Exit 1, naming the package, on a download or integrity failure.
#
# usage: fetch-ort.sh [--print-dir]   (--print-dir: print CACHE and exit)
set -euo pipefail

cache=${WINML_ORT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/winml-make/ort}
if [ "${1:-}" = "--print-dir" ]; then
  echo "$cache"
  exit 0
fi

fail() {
  echo "fetch-ort: $*" >&2
  exit 1
}

# pack PACKAGE VERSION INTEGRITY DIR: the tarball npm downloads, checked
# against the pinned integrity; prints its path.
pack() {
  local pkg=$1 version=$2 integrity=$3 dir=$4
  (cd "$dir" && npm pack "$pkg@$version" --silent >/dev/null) || fail "npm pack $pkg@$version failed"
  local tarball
  tarball=$(ls "$dir"/*.tgz 2>/dev/null | head -n1)
  [ -n "$tarball" ] || fail "npm pack $pkg@$version wrote no tarball"
  local got
  got=$(node -e 'const c = require("crypto"), fs = require("fs");
    process.stdout.write("sha512-" + c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"))' "$tarball")
  [ "$got" = "$integrity" ] || fail "$pkg@$version: integrity $got, expected $integrity"
  echo "$tarball"
}

# What .integrity holds: the tarball's integrity and the layout of the
# directory (a new layout refetches the directories of the old one).
layout="layout 2: lib/, win-x64/"

# done_already VERSION INTEGRITY: the version's directory is complete.
done_already() {
  [ -f "$cache/$1/.integrity" ] && [ "$(cat "$cache/$1/.integrity")" = "$2 $layout" ]
}

# install_version VERSION INTEGRITY FILL: FILL populates a staging directory
# (given the tarball and the directory); it replaces $cache/VERSION at once.
install_version() {
  local version=$1 integrity=$2 fill=$3 pkg=$4
  done_already "$version" "$integrity" && return 0
  mkdir -p "$cache"
  staging=$(mktemp -d "$cache/.fetch-$version.XXXXXX")
  echo "fetch-ort: $pkg (ONNX Runtime $version)"
  local tarball
  tarball=$(pack "$pkg" "${pkg_version[$pkg]}" "$integrity" "$staging")
  mkdir -p "$staging/out"
  "$fill" "$tarball" "$staging/out"
  echo "$integrity $layout" >"$staging/out/.integrity"
  rm -rf "$cache/$version.old"
  [ -e "$cache/$version" ] && mv "$cache/$version" "$cache/$version.old"
  mv "$staging/out" "$cache/$version"
  rm -rf "$cache/$version.old" "$staging"
}

# ORT 1.29.0 from the Unity plugin: headers (any slice of the iOS
# xcframework: they are the same files), the Linux x64 library and the
# Windows x64 DLLs.
fill_1_29() {
  local tarball=$1 out=$2 x
  x=$(dirname "$out")/x
  mkdir -p "$x" "$out/include" "$out/lib" "$out/win-x64"
  tar --no-same-owner -xzf "$tarball" -C "$x" --wildcards \
    'package/Plugins/iOS~/onnxruntime.xcframework/*/onnxruntime.framework/Headers/*' \
    package/Plugins/Linux/x64/libonnxruntime.so \
    package/Plugins/Windows/x64/onnxruntime.dll package/Plugins/Windows/x64/onnxruntime_providers_shared.dll
  local headers
  headers=$(ls -d "$x"/package/Plugins/iOS~/onnxruntime.xcframework/*/onnxruntime.framework/Headers | head -n1)
  cp "$headers"/*.h "$out/include/"
  grep -q '#define ORT_API_VERSION 29' "$out/include/onnxruntime_c_api.h" || fail "1.29.0 headers: ORT_API_VERSION is not 29"
  mv "$x/package/Plugins/Linux/x64/libonnxruntime.so" "$out/lib/libonnxruntime.so"
  ln -s libonnxruntime.so "$out/lib/libonnxruntime.so.1"  # its soname
  mv "$x/package/Plugins/Windows/x64/onnxruntime.dll" "$x/package/Plugins/Windows/x64/onnxruntime_providers_shared.dll" \
    "$out/win-x64/"
}

# ORT 1.30.0's libraries from onnxruntime-node (not its Node binding): Linux
# x64 and Windows x64.
fill_1_30() {
  local tarball=$1 out=$2 x
  x=$(dirname "$out")/x
  mkdir -p "$x" "$out/lib" "$out/win-x64"
  tar --no-same-owner -xzf "$tarball" -C "$x" package/bin/napi-v6/linux/x64/libonnxruntime.so.1 \
    package/bin/napi-v6/win32/x64/onnxruntime.dll
  mv "$x/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$out/lib/libonnxruntime.so.1"
  ln -s libonnxruntime.so.1 "$out/lib/libonnxruntime.so"
  mv "$x/package/bin/napi-v6/win32/x64/onnxruntime.dll" "$out/win-x64/onnxruntime.dll"
}

command -v npm >/dev/null 2>&1 || fail "npm is not installed (scripts/install-deps.sh installs it)"
command -v node >/dev/null 2>&1 || fail "node is not installed (scripts/install-deps.sh installs it)"

staging=""
trap 'rm -rf "$staging"' EXIT  # what a failure left
declare -A pkg_version=(
  [com.github.asus4.onnxruntime]=0.4.9
  [onnxruntime-node]=1.30.0
)
install_version 1.29.0 'sha512-BkzxduSZ9IkeDP6Q8lz2TFU2ie7hSSvS7ZIfzMooExoq0CNzJnuuGaUJ7IsojBgqO4ouD1jXah8OYyJbCN29Fg==' \
  fill_1_29 com.github.asus4.onnxruntime
install_version 1.30.0 'sha512-twhs1C2C/BFkz1yc5OY0KIU2GUq6DURO7hD4bx5Q2Qy3nAMJwRXW8xU3NVczE29VA9lolLOYepoD8fjTGOfIqw==' \
  fill_1_30 onnxruntime-node
echo "fetch-ort: ONNX Runtime 1.29.0 and 1.30.0 (Linux x64, Windows x64) in $cache"

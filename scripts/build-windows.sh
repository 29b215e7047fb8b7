#!/usr/bin/env bash
# Builds winml-make for Windows x64 into ./build-windows, cross-compiled on
# Debian with mingw-w64 (scripts/windows/toolchain.cmake): winml-make.exe,
# winml-make-tools.dll and winml_ref_ep.dll, self-contained (libgcc, libstdc++
# and winpthread linked in). The libraries they need are built once into a
# cache by scripts/windows/deps.sh (protobuf, ONNX 1.17, xxhash, googletest
# from Debian's sources). The test binaries of the unit and cli tiers are
# built too when named; ctest runs them under Wine (scripts/windows/wine-run.sh).
#
# usage: scripts/build-windows.sh [TARGET...]   (default: the three programs)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/windows/deps.sh
prefix=$(bash scripts/windows/deps.sh --print-prefix)
source scripts/configure.sh
# Exported test models and the ONNX Runtime oracle are the Linux build's
# (made by Linux programs: PyTorch, Node.js), shared rather than made twice.
mapfile -t shared < <(shared_with_main_tree WINML_TEST_MODELS WINML_ORT_NODE_DIR)
configure build-windows -DCMAKE_TOOLCHAIN_FILE=scripts/windows/toolchain.cmake -DWINML_WINDOWS_DEPS="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DWINML_BUILD_BENCHMARKS=OFF "${shared[@]}"
if [ $# -gt 0 ]; then
  cmake --build build-windows -j"$(nproc)" --target "$@"
else
  cmake --build build-windows -j"$(nproc)" --target winml-make winml-make-tools winml_ref_ep
fi

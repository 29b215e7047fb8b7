#!/usr/bin/env bash
# README command 1: install dependencies, build, and build the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Only the tool: the tests and benchmarks are built by scripts/test.sh.
bash scripts/build.sh winml-make
./build/winml-make -C examples/quickstart
echo
./build/winml-make inspect -m examples/quickstart/build/quickstart/model.onnx

#!/usr/bin/env bash
# Installs everything winml-make needs to build and test on Debian 12.
# Idempotent: packages already present are left alone. Run as root (or with sudo).
set -euo pipefail

packages=(
  # build
  build-essential cmake pkg-config
  # the design card's libraries
  libtoml11-dev libprotobuf-dev protobuf-compiler libonnx-dev libxxhash-dev nlohmann-json3-dev libcli11-dev
  # runtime kernels (GEMM/convolution)
  libeigen3-dev
  # the shared cache: HTTP (libcurl) and SHA-256 (OpenSSL's libcrypto)
  libcurl4-openssl-dev libssl-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev libonnx-testdata ninja-build
  # a real pseudo-terminal for the terminal tests; zsh to parse its completion script;
  # pgrep and ps, which find Wine's processes in tests/windows/console_stop.sh
  tmux zsh procps
  # groff formats the manual page in its test; dpkg-dev builds the .deb (dpkg-shlibdeps)
  groff-base dpkg-dev
  # Graphviz's dot, which `winml-make graph --svg` draws through (optional for users, tested here)
  graphviz
  # the fuzz targets: clang with libFuzzer and the sanitizer runtimes
  clang libclang-rt-14-dev
  # a real HTTP cache server for the shared-cache tests, and curl for its benchmark
  nginx curl openssl
  # real models for tests and the torchvision export recipe
  python3 python3-numpy python3-onnx python3-torch python3-torchvision
  # the Windows x64 build (scripts/windows/): mingw-w64's GCC 12 with posix
  # threads cross-compiles, Wine 8 runs the tests (/usr/lib/wine/wine64, not
  # on PATH without the `wine` package, which is not needed).
  # scripts/windows/deps.sh builds protobuf, xxhash and ONNX from Debian's
  # source tarballs (with curl and the host protoc above), googletest from
  # /usr/src/googletest, and copies the header-only packages above.
  g++-mingw-w64-x86-64-posix wine64 googletest
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# ONNX Runtime (the test oracle) comes from npm's onnxruntime-node.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all dependencies present"
fi

# ONNX Runtime's C API headers and libraries (1.29.0, 1.30.0) from npm, pinned
# by integrity, into the user's cache: the build compiles against the headers,
# the `ort` compile backend loads a library (docs/compile-with-ort.md).
bash "$(dirname "$0")/fetch-ort.sh"

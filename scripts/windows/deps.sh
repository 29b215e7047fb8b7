#!/usr/bin/env bash
# Builds the libraries of the Windows x64 build once, with mingw-w64
# (scripts/windows/toolchain.cmake), into a prefix in the user's cache:
#
#   $CACHE/<stamp>/include/     google/protobuf, onnx, xxhash.h + xxh3.h + xxh_x86dispatch.h,
#                               gtest, nlohmann, toml.hpp + toml/, CLI, eigen3
#   $CACHE/<stamp>/lib/         libprotobuf.a, libonnx.a, libonnx_proto.a, libxxhash.a,
#                               libgtest.a, libgtest_main.a
#   $CACHE/<stamp>/lib/cmake/   protobuf, ONNX, GTest       (CMake package configs)
#   $CACHE/<stamp>/share/...    nlohmann_json, CLI11, toml11, Eigen3 configs
#   $CACHE/<stamp>/winml-deps.txt   what went in: pins, digests, host package versions
#   $CACHE/downloads/           the source tarballs, by name (checked on every use)
#
# CACHE is $WINML_WINDOWS_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/winml-make/windows.
# The stamp is a digest of this script, the toolchain file and the versions of
# the Debian packages whose files go in (compilers, headers, googletest): a
# change of any pin, of the recipe or of a package builds a new prefix; an
# old one is never reused. Old prefixes stay until removed by hand.
#
# Sources, each pinned by sha256 (the digests Debian's .dsc files state):
#   protobuf 3.21.12   bookworm's source package, its upstream (orig) tarball.
#                      Debian's patches change Java, Python, PHP and other
#                      architectures only; none touches libprotobuf on x86-64.
#                      The static libprotobuf only: Debian's host protoc
#                      (3.21.12, protobuf-compiler) generates the code, and
#                      the prefix's protobuf config names it as protobuf::protoc.
#   xxhash 0.8.1       bookworm's orig tarball: a static libxxhash of xxhash.c
#                      and xxh_x86dispatch.c (run-time AVX2/AVX-512 dispatch,
#                      as Debian's libxxhash on amd64).
#   ONNX 1.17.0        trixie's pool (bookworm's 1.12.0 tarball is no longer
#                      served), static, ONNX_ML, namespace onnx.
#   googletest 1.12.1  /usr/src/googletest (Debian's googletest package).
#   header-only        nlohmann-json, toml11, CLI11, Eigen3, copied from
#                      Debian's packages with their CMake configs; /usr/include
#                      itself is never on the Windows include path.
# Tarballs come from the Debian archive configured in /etc/apt (the first
# bookworm entry of /etc/apt/sources.list.d/*.sources, *.list or
# /etc/apt/sources.list), by pool path; WINML_DEBIAN_MIRROR overrides it.
#
# Idempotent and atomic: a prefix is built in $CACHE/.build-<stamp>.XXXXXX and
# renamed into place when complete, under a lock per stamp, so a concurrent
# run waits and then finds it done, and a killed run leaves only a temporary
# directory (removed by the next run) that is never taken as a prefix.
#
# usage: deps.sh [--print-prefix]   (--print-prefix: print the prefix's path and exit;
#                                    it may not be built yet)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${WINML_WINDOWS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/winml-make/windows}

# Pins: Debian pool path, sha256.
protobuf_version=3.21.12
protobuf_pool=pool/main/p/protobuf/protobuf_3.21.12.orig.tar.gz
protobuf_sha256=930c2c3b5ecc6c9c12615cf5ad93f1cd6e12d0aba862b572e076259970ac3a53
xxhash_version=0.8.1
xxhash_pool=pool/main/x/xxhash/xxhash_0.8.1.orig.tar.gz
xxhash_sha256=3bb6b7d6f30c591dd65aaaff1c8b7a5b94d81687998ca9400082c739a690436c
onnx_version=1.17.0
onnx_pool=pool/main/o/onnx/onnx_1.17.0.orig.tar.gz
onnx_sha256=8d5e983c36037003615e5a02d36b18fc286541bf52de1a78f6cf9f32005a820e

# Debian packages whose files go into the prefix or build it.
host_packages=(
  g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix-runtime mingw-w64-x86-64-dev binutils-mingw-w64-x86-64
  protobuf-compiler googletest nlohmann-json3-dev libtoml11-dev libcli11-dev libeigen3-dev
)

fail() {
  echo "windows deps: $*" >&2
  exit 1
}

stamp() {
  {
    cat "$here/deps.sh" "$here/toolchain.cmake"
    dpkg-query -W -f='${Package} ${Version}\n' "${host_packages[@]}" 2>/dev/null || true
  } | sha256sum | cut -c1-16
}

prefix=$cache/$(stamp)
if [ "${1:-}" = "--print-prefix" ]; then
  echo "$prefix"
  exit 0
elif [ $# -gt 0 ]; then
  echo "usage: deps.sh [--print-prefix]" >&2
  exit 2
fi

# The warm path: the prefix exists only once complete.
if [ -f "$prefix/winml-deps.txt" ]; then
  echo "windows deps: $prefix"
  exit 0
fi

# --- What the build needs on the host -------------------------------------
missing=()
for p in "${host_packages[@]}" cmake python3 curl; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]} == 0)) || fail "missing Debian packages: ${missing[*]} (scripts/install-deps.sh installs them)"

# debian_mirror: the URI of the first bookworm entry of APT's sources.
debian_mirror() {
  if [ -n "${WINML_DEBIAN_MIRROR:-}" ]; then
    echo "${WINML_DEBIAN_MIRROR%/}"
    return
  fi
  local uri=""
  shopt -s nullglob
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    uri=$(awk '
      function flush() {
        if (!found && enabled != "no" && types ~ /(^| )deb(-src)?( |$)/ && suites ~ /(^| )bookworm( |$)/ && uris != "") {
          split(uris, u, " "); print u[1]; found = 1
        }
        types = uris = suites = enabled = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
      /^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
      /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
      /^Enabled:/ { sub(/^Enabled:[ \t]*/, ""); enabled = tolower($0) }
      END { flush() }' "$f")
    [ -z "$uri" ] || break
  done
  if [ -z "$uri" ]; then
    for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list; do
      [ -f "$f" ] || continue
      uri=$(sed -E -n 's/^[[:space:]]*deb(-src)?[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+bookworm[[:space:]].*/\3/p' "$f" | head -n1)
      [ -z "$uri" ] || break
    done
  fi
  shopt -u nullglob
  [ -n "$uri" ] || fail "no Debian bookworm entry in /etc/apt/sources.list.d/ or /etc/apt/sources.list; set WINML_DEBIAN_MIRROR (e.g. http://deb.debian.org/debian)"
  echo "${uri%/}"
}

# fetch POOL_PATH SHA256: the tarball in $cache/downloads, checked; prints its path.
fetch() {
  local pool=$1 sha=$2 name
  name=$(basename "$pool")
  local file=$cache/downloads/$name
  if [ -f "$file" ] && echo "$sha  $file" | sha256sum --quiet -c - 2>/dev/null; then
    echo "$file"
    return
  fi
  mkdir -p "$cache/downloads"
  local url
  url=$(debian_mirror)/$pool
  echo "windows deps: downloading $url" >&2
  local part
  part=$(mktemp "$file.XXXXXX")
  curl -fsSL --retry 3 -o "$part" "$url" || { rm -f "$part"; fail "download of $url failed"; }
  local got
  got=$(sha256sum "$part" | cut -d' ' -f1)
  [ "$got" = "$sha" ] || { rm -f "$part"; fail "$name: sha256 $got, expected $sha"; }
  mv -f "$part" "$file"
  echo "$file"
}

# --- Build, under a lock per stamp -----------------------------------------
mkdir -p "$cache"
exec 8>"$cache/.lock-$(basename "$prefix")"
if ! flock -n 8; then
  echo "windows deps: another run is building $prefix; waiting for it"
  flock 8
fi
if [ -f "$prefix/winml-deps.txt" ]; then
  echo "windows deps: $prefix"
  exit 0
fi
# What killed runs left (no other run holds this stamp's lock).
rm -rf "$cache/.build-$(basename "$prefix")".*
[ ! -e "$prefix" ] || rm -rf "$prefix"  # not complete (no winml-deps.txt), never renamed there by this script

start=$SECONDS
work=$(mktemp -d "$cache/.build-$(basename "$prefix").XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/prefix
mkdir -p "$stage" "$work/src" "$work/logs"
jobs=$(nproc)
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
# The libraries name their sources (__FILE__ in log and check messages)
# relative to the build directory, which is temporary: they are the same
# bytes whichever directory built them. (CFLAGS/CXXFLAGS: they add to the
# toolchain's flags, where -DCMAKE_CXX_FLAGS would replace them.) Flags of
# the caller's environment do not go in: the stamp does not record them.
export CFLAGS="-ffile-prefix-map=$work/=" CXXFLAGS="-ffile-prefix-map=$work/="
unset LDFLAGS
cmake_common=(
  "${generator[@]}"
  -DCMAKE_TOOLCHAIN_FILE="$here/toolchain.cmake"
  -DWINML_WINDOWS_DEPS="$stage"
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_INSTALL_PREFIX="$stage"
  -DCMAKE_INSTALL_LIBDIR=lib
)

# step NAME COMMAND...: runs COMMAND with its output in a log, shown on failure.
step() {
  local name=$1 t=$SECONDS
  shift
  if ! "$@" >>"$work/logs/$name.log" 2>&1; then
    tail -n 40 "$work/logs/$name.log" >&2
    cp "$work/logs/$name.log" "$cache/last-failure-$name.log"
    fail "$name failed (log: $cache/last-failure-$name.log)"
  fi
  echo "windows deps: $name ($((SECONDS - t)) s)"
}

# cmake_build NAME SOURCE_DIR ARGS...: configure, build and install one project.
cmake_build() {
  local name=$1 src=$2
  shift 2
  step "$name-configure" cmake -S "$src" -B "$work/build-$name" "${cmake_common[@]}" "$@"
  step "$name-build" cmake --build "$work/build-$name" -j"$jobs"
  step "$name-install" cmake --install "$work/build-$name"
}

echo "windows deps: building into $prefix"
for pkg in protobuf xxhash onnx; do
  pool_var=${pkg}_pool sha_var=${pkg}_sha256
  tarball=$(fetch "${!pool_var}" "${!sha_var}")
  tar -xzf "$tarball" -C "$work/src" --no-same-owner
done

# Optimization: CMake's Release is -O3, the cold build's largest cost.
# protobuf parses every model winml-make reads: -O2. ONNX (operator schemas,
# checker, shape inference: registration code run once and light passes)
# and googletest (only the tests link it): -O1, which compiles them in
# under half the time (protobuf's descriptor.cc: 22.8 s at -O2, 9.1 s at -O1).
# protobuf: libprotobuf (and -lite), static, without protoc.
cmake_build protobuf "$work/src/protobuf-$protobuf_version" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -Dprotobuf_BUILD_TESTS=OFF -Dprotobuf_BUILD_PROTOC_BINARIES=OFF -Dprotobuf_BUILD_LIBPROTOC=OFF \
  -Dprotobuf_BUILD_SHARED_LIBS=OFF -Dprotobuf_WITH_ZLIB=OFF -Dprotobuf_BUILD_EXAMPLES=OFF
# The host's protoc as protobuf::protoc, checked to be the library's version.
protobuf_cmake=$stage/lib/cmake/protobuf
[ -f "$protobuf_cmake/protobuf-config.cmake" ] || fail "protobuf installed no lib/cmake/protobuf/protobuf-config.cmake"
cat >"$protobuf_cmake/protobuf-host-protoc.cmake" <<EOF
# This prefix holds protobuf's Windows library, not its compiler: the host's
# protoc (Debian's protobuf-compiler, the same version) generates the code.
# protobuf::protoc names it, so that protobuf_generate and
# protobuf_generate_cpp run it directly (never through the cross-compiling
# emulator).
if(NOT TARGET protobuf::protoc)
  find_program(Protobuf_PROTOC_EXECUTABLE protoc NO_CMAKE_FIND_ROOT_PATH
               DOC "The host's protoc, the version of the Windows libprotobuf")
  if(NOT Protobuf_PROTOC_EXECUTABLE)
    message(FATAL_ERROR "protoc not found: install Debian's protobuf-compiler (${protobuf_version})")
  endif()
  execute_process(COMMAND "\${Protobuf_PROTOC_EXECUTABLE}" --version
                  OUTPUT_VARIABLE _winml_protoc_version OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _winml_protoc_version STREQUAL "libprotoc ${protobuf_version}")
    message(FATAL_ERROR "\${Protobuf_PROTOC_EXECUTABLE} is '\${_winml_protoc_version}': the Windows "
                        "libprotobuf is ${protobuf_version} and needs code generated by the same version")
  endif()
  unset(_winml_protoc_version)
  add_executable(protobuf::protoc IMPORTED)
  set_target_properties(protobuf::protoc PROPERTIES
    IMPORTED_LOCATION "\${Protobuf_PROTOC_EXECUTABLE}"
    CROSSCOMPILING_EMULATOR "")
endif()
EOF
targets_line='include("${CMAKE_CURRENT_LIST_DIR}/protobuf-targets.cmake")'
grep -qxF "$targets_line" "$protobuf_cmake/protobuf-config.cmake" || fail "protobuf-config.cmake: no line $targets_line"
sed -i "\\|^include(\"\${CMAKE_CURRENT_LIST_DIR}/protobuf-targets.cmake\")\$|a include(\"\${CMAKE_CURRENT_LIST_DIR}/protobuf-host-protoc.cmake\")" \
  "$protobuf_cmake/protobuf-config.cmake"

# xxhash: the library Debian's Makefile builds on amd64 (xxhash.c with the
# x86 dispatch), from a two-file CMake project.
mkdir -p "$work/src/xxhash-cmake"
cat >"$work/src/xxhash-cmake/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(xxhash VERSION $xxhash_version LANGUAGES C)
set(src "$work/src/xxHash-$xxhash_version")
add_library(xxhash STATIC \${src}/xxhash.c \${src}/xxh_x86dispatch.c)
target_include_directories(xxhash PRIVATE \${src})
install(TARGETS xxhash ARCHIVE DESTINATION lib)
install(FILES \${src}/xxhash.h \${src}/xxh3.h \${src}/xxh_x86dispatch.h DESTINATION include)
EOF
cmake_build xxhash "$work/src/xxhash-cmake"

# ONNX: static, against the prefix's protobuf. ONNX uses
# ONNX_CUSTOM_PROTOC_EXECUTABLE only when protobuf::libprotobuf exists as it
# reaches its protobuf section, which nothing before it finds: a project
# include finds it first (no source change).
cat >"$work/onnx-find-protobuf.cmake" <<'EOF'
find_package(Protobuf CONFIG REQUIRED)
EOF
cmake_build onnx "$work/src/onnx-$onnx_version" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DCMAKE_PROJECT_INCLUDE="$work/onnx-find-protobuf.cmake" \
  -DONNX_CUSTOM_PROTOC_EXECUTABLE=/usr/bin/protoc \
  -DONNX_ML=1 -DONNX_NAMESPACE=onnx -DONNX_BUILD_TESTS=OFF -DBUILD_ONNX_PYTHON=OFF \
  -DONNX_USE_PROTOBUF_SHARED_LIBS=OFF -DONNX_GEN_PB_TYPE_STUBS=OFF -DONNX_WERROR=OFF
grep -q "Using custom protoc executable" "$work/logs/onnx-configure.log" ||
  fail "ONNX did not take the host protoc (ONNX_CUSTOM_PROTOC_EXECUTABLE)"
# ONNX's installed config: it set Protobuf_INCLUDE_DIR and CMAKE_PREFIX_PATH
# from variables empty in this build (clobbering the consumer's) before
# finding Protobuf; it finds the prefix's protobuf config instead. And the
# names Debian's ONNX 1.12 exports (onnx, onnx_proto: the Linux build links
# them) stand beside 1.17's ONNX::onnx and ONNX::onnx_proto.
onnx_config=$stage/lib/cmake/ONNX/ONNXConfig.cmake
[ -f "$onnx_config" ] || fail "ONNX installed no lib/cmake/ONNX/ONNXConfig.cmake"
grep -qxF 'find_package(Protobuf REQUIRED)' "$onnx_config" || fail "ONNXConfig.cmake: no find_package(Protobuf REQUIRED)"
sed -i -e '/^list(APPEND CMAKE_PREFIX_PATH ".*")$/d' -e '/^set(Protobuf_INCLUDE_DIR ".*")$/d' \
  -e 's/^find_package(Protobuf REQUIRED)$/include(CMakeFindDependencyMacro)\nfind_dependency(Protobuf CONFIG)/' "$onnx_config"
cat >>"$onnx_config" <<'EOF'

# The target names of ONNX builds that exported them without a namespace
# (Debian's libonnx 1.12): onnx and onnx_proto, as the ONNX:: targets.
foreach(_winml_onnx_target IN ITEMS onnx onnx_proto)
  if(NOT TARGET ${_winml_onnx_target} AND TARGET ONNX::${_winml_onnx_target})
    add_library(${_winml_onnx_target} INTERFACE IMPORTED)
    set_target_properties(${_winml_onnx_target} PROPERTIES INTERFACE_LINK_LIBRARIES ONNX::${_winml_onnx_target})
  endif()
endforeach()
unset(_winml_onnx_target)
EOF

# googletest (the tests use no googlemock), from Debian's sources.
cmake_build googletest /usr/src/googletest -DBUILD_GMOCK=OFF -DINSTALL_GTEST=ON -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG"

# Header-only libraries and their CMake configs, as Debian ships them (the
# configs locate the prefix relative to themselves).
step header-only bash -c '
  set -euo pipefail
  stage=$1
  mkdir -p "$stage/include" "$stage/share/cmake" "$stage/share/eigen3"
  cp -a /usr/include/nlohmann /usr/include/toml.hpp /usr/include/toml /usr/include/CLI /usr/include/eigen3 "$stage/include/"
  cp -a /usr/share/cmake/nlohmann_json /usr/share/cmake/toml11 /usr/share/cmake/CLI11 "$stage/share/cmake/"
  cp -a /usr/share/eigen3/cmake "$stage/share/eigen3/"
' _ "$stage"

# pkg-config files locate the prefix relative to themselves.
sed -i "s|$stage|\${pcfiledir}/../..|g" "$stage"/lib/pkgconfig/*.pc

# The prefix is moved after the build: nothing in it may name where it was built.
if leaked=$(grep -rlF "$work" "$stage"); then
  fail "files in the prefix name the build directory: $leaked"
fi

{
  echo "# scripts/windows/deps.sh, stamp $(basename "$prefix"), built $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((SECONDS - start)) s"
  echo "protobuf $protobuf_version $(debian_mirror)/$protobuf_pool sha256 $protobuf_sha256"
  echo "xxhash $xxhash_version $(debian_mirror)/$xxhash_pool sha256 $xxhash_sha256"
  echo "onnx $onnx_version $(debian_mirror)/$onnx_pool sha256 $onnx_sha256"
  echo "# Debian packages"
  dpkg-query -W -f='${Package} ${Version}\n' "${host_packages[@]}"
} >"$stage/winml-deps.txt"

mv -T "$stage" "$prefix"
rm -rf "$work"  # the sources and build trees, part of the time a cold run takes
echo "windows deps: built in $((SECONDS - start)) s: $prefix"

# CMake toolchain: Windows x64, cross-compiled on Debian 12 with mingw-w64
# (GCC 12, posix threads: package g++-mingw-w64-x86-64-posix), tests run
# under Wine 8 (package wine64) through scripts/windows/wine-run.sh.
#
#   scripts/windows/deps.sh      # once: the Windows libraries, into a cache
#   cmake -S . -B build-windows -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/scripts/windows/toolchain.cmake"
#
# WINML_WINDOWS_DEPS is the prefix scripts/windows/deps.sh builds (protobuf,
# ONNX, xxhash, googletest and the header-only libraries); left empty (the
# default), it is asked from deps.sh at every configure. Libraries, headers
# and CMake packages are found there and in mingw-w64's own sysroot only:
# nothing of the host's /usr (its x86-64 Linux libraries, /usr/include) is
# ever found. Programs (protoc, python3, ccache) are the host's.
#
# Everything built with it:
# - links libgcc, libstdc++ and winpthread statically (-static), executables
#   and DLLs alike: Wine (and Windows) run them without WINEPATH or MinGW
#   DLLs beside them. An exception thrown in such a DLL is caught by type in
#   such an exe (SEH unwinding crosses modules).
# - defines _NO_W32_PSEUDO_MODIFIERS: <windows.h> would otherwise define
#   OPTIONAL (and IN, OUT) as empty macros, which breaks ONNX's generated
#   onnx-data.pb.h (`static constexpr DataType OPTIONAL = ...`) wherever it
#   is included after <windows.h>, ONNX's own onnx/common/path.cc included.
# - assembles with -muse-unaligned-vector-move: GCC does not align the stack
#   for 32- and 64-byte AVX locals on Win64 (GCC bug 54412), and an aligned
#   vmovaps/vmovdqa on a misaligned spill faults; binutils (2.40) rewrites
#   them as the unaligned forms, no slower on aligned data.
# - finds CMake packages by their config files first
#   (CMAKE_FIND_PACKAGE_PREFER_CONFIG): ONNX's installed config cannot be
#   read through CMake's FindProtobuf module, and the config files are the
#   ones of the libraries built here.
# The compile and link flags above are CMAKE_<LANG>_FLAGS_INIT and
# CMAKE_<TYPE>_LINKER_FLAGS_INIT: a -DCMAKE_CXX_FLAGS=... on the first
# configure replaces them; add flags through the CFLAGS/CXXFLAGS/LDFLAGS
# environment variables (which CMake adds to them) or to the targets.
#
# Under Wine, a program that crashes prints "wine: Unhandled page fault ...
# starting debugger..." (the debugger is disabled) and exits with the low
# byte of its exception code (0xC0000005 -> 5).

set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)  # what CMake reports on Windows x64 itself

set(WINML_MINGW_TRIPLET x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${WINML_MINGW_TRIPLET}-gcc-posix)
set(CMAKE_CXX_COMPILER ${WINML_MINGW_TRIPLET}-g++-posix)
set(CMAKE_RC_COMPILER ${WINML_MINGW_TRIPLET}-windres)
set(CMAKE_AR ${WINML_MINGW_TRIPLET}-ar CACHE FILEPATH "Archiver")
set(CMAKE_RANLIB ${WINML_MINGW_TRIPLET}-ranlib CACHE FILEPATH "Ranlib")

set(CMAKE_C_FLAGS_INIT "-D_NO_W32_PSEUDO_MODIFIERS -Wa,-muse-unaligned-vector-move")
set(CMAKE_CXX_FLAGS_INIT "-D_NO_W32_PSEUDO_MODIFIERS -Wa,-muse-unaligned-vector-move")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static")

# ctest, gtest_discover_tests and custom commands run what was built through Wine.
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/wine-run.sh)

# The dependency prefix (scripts/windows/deps.sh). Left empty, it is asked
# from deps.sh at every configure (a normal variable; the cache entry stays
# empty), so that a build tree follows a changed recipe or pin to its new
# prefix. try_compile projects include this file again; they get the value
# through CMAKE_TRY_COMPILE_PLATFORM_VARIABLES.
set(WINML_WINDOWS_DEPS "" CACHE PATH
    "The Windows dependency prefix built by scripts/windows/deps.sh (empty: ask deps.sh --print-prefix)")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WINML_WINDOWS_DEPS)
if(NOT WINML_WINDOWS_DEPS)
  if(NOT _winml_deps_prefix)
    execute_process(COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/deps.sh --print-prefix
                    OUTPUT_VARIABLE _winml_deps_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _winml_deps_result)
    if(NOT _winml_deps_result EQUAL 0 OR NOT _winml_deps_prefix)
      message(FATAL_ERROR "scripts/windows/deps.sh --print-prefix failed; pass -DWINML_WINDOWS_DEPS=<prefix>")
    endif()
  endif()
  set(WINML_WINDOWS_DEPS ${_winml_deps_prefix})
endif()
if(NOT EXISTS ${WINML_WINDOWS_DEPS})
  message(FATAL_ERROR "The Windows dependencies are not built: no ${WINML_WINDOWS_DEPS}. "
                      "Run scripts/windows/deps.sh (it prints its prefix with --print-prefix).")
endif()
# A build tree configured against another prefix (an older stamp) forgets
# what it found there (<Package>_DIR, find_path and find_library results), so
# that nothing of the old prefix is used beside the new one.
if(DEFINED CACHE{_WINML_WINDOWS_DEPS_CONFIGURED}
   AND NOT "$CACHE{_WINML_WINDOWS_DEPS_CONFIGURED}" STREQUAL "${WINML_WINDOWS_DEPS}")
  set(_winml_old "$CACHE{_WINML_WINDOWS_DEPS_CONFIGURED}")
  get_cmake_property(_winml_entries CACHE_VARIABLES)
  set(_winml_forgotten 0)
  foreach(_winml_entry IN LISTS _winml_entries)
    get_property(_winml_value CACHE ${_winml_entry} PROPERTY VALUE)
    string(FIND "${_winml_value}" "${_winml_old}/" _winml_at)
    if(_winml_at EQUAL 0 OR _winml_value STREQUAL _winml_old)
      unset(${_winml_entry} CACHE)
      math(EXPR _winml_forgotten "${_winml_forgotten} + 1")
    endif()
  endforeach()
  message(STATUS "Windows dependencies: ${WINML_WINDOWS_DEPS} (was ${_winml_old}: ${_winml_forgotten} cache entries found there forgotten)")
endif()
set(_WINML_WINDOWS_DEPS_CONFIGURED ${WINML_WINDOWS_DEPS} CACHE INTERNAL "The prefix this build tree was last configured against")

# Search the prefix and mingw-w64's sysroot only, for libraries, headers and
# packages; programs on the host.
set(CMAKE_FIND_ROOT_PATH ${WINML_WINDOWS_DEPS} /usr/${WINML_MINGW_TRIPLET})
if(NOT WINML_WINDOWS_DEPS IN_LIST CMAKE_PREFIX_PATH)
  list(APPEND CMAKE_PREFIX_PATH ${WINML_WINDOWS_DEPS})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_FIND_PACKAGE_PREFER_CONFIG ON)
# pkg-config, if anything asks it, sees the prefix's .pc files, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} ${WINML_WINDOWS_DEPS}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# protobuf's config defines protobuf_generate_cpp (FindProtobuf's interface)
# only when asked; the prefix's config runs the host's protoc (same version).
set(protobuf_MODULE_COMPATIBLE ON CACHE BOOL "protobuf's config provides FindProtobuf's variables and protobuf_generate_cpp")

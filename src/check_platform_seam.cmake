# cmake -DSRC=<src folder> -P check_platform_seam.cmake
# Fails when a file of src/ outside a posix/ or windows/ folder asks which
# system it is built for (#if on _WIN32, __linux__, ...) or includes a
# header only one system has (<windows.h>, <unistd.h>, <sys/...>, ...).
# Those folders hold each system's side of a seam, and CMake chooses one
# (base/CMakeLists.txt); everything else is written once for both.
cmake_minimum_required(VERSION 3.25)
cmake_path(ABSOLUTE_PATH SRC NORMALIZE)
file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/*.h ${SRC}/*.cpp)
list(SORT files)
set(system_macro "_WIN32|_WIN64|__linux__|__linux|__unix__|__unix|__APPLE__|__MACH__|__MINGW32__|__MINGW64__|_MSC_VER|__CYGWIN__|__GLIBC__|__FreeBSD__|_POSIX_VERSION")
set(system_header "windows\\.h|winhttp\\.h|bcrypt\\.h|io\\.h|psapi\\.h|shellapi\\.h|winsock2?\\.h|unistd\\.h|fcntl\\.h|dlfcn\\.h|spawn\\.h|poll\\.h|pthread\\.h|malloc\\.h|termios\\.h|dirent\\.h|glob\\.h|fnmatch\\.h|sys/[a-z_]+\\.h|linux/[a-z_]+\\.h")
set(violations "")
foreach(f IN LISTS files)
  if(f MATCHES "(^|/)(posix|windows)/")
    continue()
  endif()
  file(STRINGS ${SRC}/${f} lines REGEX "^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|include)")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*#[ \t]*(if|ifdef|ifndef|elif).*(${system_macro})" OR
       line MATCHES "^[ \t]*#[ \t]*include[ \t]*<(${system_header})>")
      string(STRIP "${line}" line)
      string(APPEND violations "  ${f}: ${line}\n")
    endif()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "System-specific code outside a posix/ or windows/ folder (put it behind a seam of base/, "
                      "one implementation per system):\n${violations}")
endif()
list(LENGTH files n)
message(STATUS "platform seam: ${n} files of src/, none asks which system it is built for outside posix/ and windows/")

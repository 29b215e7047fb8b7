// A benchmark's main: an error (a refused file, a bad argument) is a message
// and exit code 1, never an uncaught exception that aborts.
#pragma once

#include <cstdio>
#include <exception>

namespace winml::bench {

inline int guarded_main(int argc, char** argv, int (*run)(int, char**)) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
}

}  // namespace winml::bench

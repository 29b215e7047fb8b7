// A fault injected into winml-make by tests, and only by them: preloaded
// (LD_PRELOAD), this library replaces rename(2) so that the process renaming
// a file whose destination contains $WINML_TEST_FAULT_ON_RENAME dies there
// of the signal numbered $WINML_TEST_FAULT_SIGNAL (SIGSEGV by default), as a
// stage that crashes while it writes its output would. Every other rename is
// the C library's.
#include <dlfcn.h>
#include <signal.h>

#include <cstdlib>
#include <cstring>

extern "C" __attribute__((visibility("default"))) int rename(const char* from, const char* to) {
  const char* pattern = std::getenv("WINML_TEST_FAULT_ON_RENAME");
  if (pattern && *pattern && to && std::strstr(to, pattern)) {
    const char* number = std::getenv("WINML_TEST_FAULT_SIGNAL");
    const int sig = number && *number ? std::atoi(number) : SIGSEGV;
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
  using Rename = int (*)(const char*, const char*);
  static const auto next = reinterpret_cast<Rename>(::dlsym(RTLD_NEXT, "rename"));
  return next(from, to);
}

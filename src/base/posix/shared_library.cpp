#include "base/shared_library.h"

#include <atomic>

#include <dlfcn.h>

#include "base/error.h"

namespace winml {

namespace {
std::atomic<std::size_t> g_opened{0};
}  // namespace

std::size_t shared_libraries_opened() { return g_opened.load(); }

SharedLibrary::SharedLibrary(const std::vector<std::string>& sonames) {
  std::string errors;
  for (const auto& name : sonames) {
    // RTLD_LOCAL: the library's symbols stay out of the global namespace.
    handle_ = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      soname_ = name;
      ++g_opened;
      return;
    }
    const char* why = ::dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(why ? why : name + ": not found");
  }
  throw BuildError("cannot load " + (sonames.empty() ? std::string("a library") : sonames.front()) + ": " + errors);
}

SharedLibrary::~SharedLibrary() {
  // Never unloaded: libcurl, OpenSSL and the model tools register
  // process-wide state (atexit handlers, thread-locals) that must outlive
  // every use.
}

void* SharedLibrary::address(const char* name) const {
  ::dlerror();
  void* p = ::dlsym(handle_, name);
  if (!p) throw BuildError(soname_ + " has no " + name + " (too old a version?)");
  return p;
}

}  // namespace winml

#include "base/shared_library.h"

#include <atomic>

#include <windows.h>

#include "base/error.h"
#include "base/windows/wide.h"

namespace winml {

namespace {
std::atomic<std::size_t> g_opened{0};
}  // namespace

std::size_t shared_libraries_opened() { return g_opened.load(); }

SharedLibrary::SharedLibrary(const std::vector<std::string>& sonames) {
  std::string errors;
  for (const auto& name : sonames) {
    const std::filesystem::path path(std::u8string_view(reinterpret_cast<const char8_t*>(name.data()), name.size()));
    // A library named by path finds the DLLs it needs beside itself (ONNX
    // Runtime's onnxruntime_providers_shared.dll) before the search path.
    const DWORD flags = path.has_parent_path() ? LOAD_WITH_ALTERED_SEARCH_PATH : 0;
    handle_ = LoadLibraryExW(windows::api_path(path.has_parent_path() ? std::filesystem::absolute(path) : path).c_str(),
                             nullptr, flags);
    if (handle_) {
      soname_ = name;
      ++g_opened;
      return;
    }
    errors += (errors.empty() ? "" : "; ") + name + ": " + windows::error_text(GetLastError());
  }
  throw BuildError("cannot load " + (sonames.empty() ? std::string("a library") : sonames.front()) + ": " + errors);
}

SharedLibrary::~SharedLibrary() {
  // Never unloaded: the libraries register process-wide state (atexit
  // handlers, thread-locals) that must outlive every use.
}

void* SharedLibrary::address(const char* name) const {
  void* p = reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(handle_), name));
  if (!p) throw BuildError(soname_ + " has no " + name + " (too old a version?)");
  return p;
}

}  // namespace winml

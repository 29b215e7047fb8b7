// A shared library opened at run time. Linked at start-up, a library costs
// every invocation, a no-op build included, its dynamic linking and page
// faults: the shared cache's (libcurl and its 29 dependencies, libcrypto) are
// loaded only when a server is named, the model tools (cli/tools_module.h)
// only when a stage or a model command runs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace winml {

class SharedLibrary {
 public:
  // Tries each soname (or path) in turn; throws BuildError naming them and
  // the loader's message when none loads.
  explicit SharedLibrary(const std::vector<std::string>& sonames);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  // The address of `name`, cast to the function type F; throws BuildError
  // when the library lacks it (too old a version).
  template <class F>
  F function(const char* name) const {
    return reinterpret_cast<F>(address(name));
  }

  const std::string& soname() const { return soname_; }

 private:
  void* address(const char* name) const;

  void* handle_ = nullptr;
  std::string soname_;
};

// How many libraries this process has opened through SharedLibrary: a
// worker that opened one is not reused (base/worker_process.h).
std::size_t shared_libraries_opened();

}  // namespace winml

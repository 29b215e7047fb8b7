#include "base/this_executable.h"

namespace winml {

const std::filesystem::path& this_executable() {
  static const std::filesystem::path path = [] {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : p;
  }();
  return path;
}

}  // namespace winml

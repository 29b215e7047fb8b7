#include "base/this_executable.h"

#include <windows.h>

#include <string>

namespace winml {

const std::filesystem::path& this_executable() {
  static const std::filesystem::path path = [] {
    std::wstring buffer(512, L'\0');
    for (;;) {
      const DWORD n = GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
      if (n == 0) return std::filesystem::path();
      if (n < buffer.size()) return std::filesystem::path(buffer.substr(0, n));
      buffer.resize(buffer.size() * 2);
    }
  }();
  return path;
}

}  // namespace winml

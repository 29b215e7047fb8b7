// Windows: a path is UTF-16 inside std::filesystem; its text is UTF-8 with
// forward slashes, the same shape as on POSIX (see base/path_text.h).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace winml {

inline std::string to_utf8(const std::filesystem::path& p) {
  const std::u8string u = p.generic_u8string();
  return std::string(u.begin(), u.end());
}
inline std::filesystem::path from_utf8(std::string_view text) {
  return std::filesystem::path(std::u8string_view(reinterpret_cast<const char8_t*>(text.data()), text.size()));
}

}  // namespace winml

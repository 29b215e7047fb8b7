// POSIX: a path's text is its own bytes, UTF-8 by convention (see
// base/path_text.h).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace winml {

// The path's own string: no copy on the no-op path.
inline const std::string& to_utf8(const std::filesystem::path& p) { return p.native(); }
inline std::filesystem::path from_utf8(std::string_view text) { return std::filesystem::path(text); }

}  // namespace winml

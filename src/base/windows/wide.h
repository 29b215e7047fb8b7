// Windows only: UTF-8 inside winml-make, UTF-16 at the system's API; paths
// made absolute and given the \\?\ prefix when they are long, so that paths
// over 260 characters work without the system's long-path setting.
#pragma once

#include <windows.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace winml::windows {

std::wstring widen(std::string_view utf8);
std::string narrow(std::wstring_view wide);

// The form of `path` to hand to a W function.
std::wstring api_path(const std::filesystem::path& path);

// FormatMessage's text for a system error code, in UTF-8, without the trailing newline.
std::string error_text(DWORD code);

// 100 ns since 1601 (FILETIME) to ns since 1970.
std::int64_t unix_ns(std::int64_t filetime);

}  // namespace winml::windows

// The running binary's real path (/proc/self/exe resolved once; on Windows GetModuleFileNameW): the plan
// memo key hashes it, and the model tools' module is found beside it.
#pragma once

#include <filesystem>

namespace winml {

// Empty when the system cannot say (Linux without /proc mounted).
const std::filesystem::path& this_executable();

}  // namespace winml

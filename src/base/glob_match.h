// Glob patterns over '/'-separated relative paths, matched as text (no
// system's glob(3)): declared inputs of the build and of the export stage.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace winml {

// '*' and '?' stay within one path component, '**' spans any number of them.
bool glob_match(std::string_view pattern, std::string_view path);

// The regular files `pattern` names below `dir`, as sorted '/'-separated
// paths relative to it: a file it matches, or every file below a folder it
// matches. A pattern without wildcards names one file or folder.
std::vector<std::string> expand_glob(const std::filesystem::path& dir, std::string_view pattern);

}  // namespace winml

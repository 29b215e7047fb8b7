// Files winml-make loads from beside itself: the model tools' module
// (cli/tools_module.h) and the `ref` plugin EP (compile/ort_target.h). One
// search for both, so that every message about a missing one names the same
// places, and the docs (getting-started.md, "Copying the binary") can say
// what to copy where.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace winml {

// Where a companion file `name` may be, in the order they are tried:
//   <dir of winml-make>/name                  a build tree, or both files copied into one folder
//   <dir of winml-make>/../lib/winml-make/name an installation, whatever its prefix
//   <configured prefix>/lib/winml-make/name    `cmake --install` without --prefix, for a binary copied away
//   /usr/lib/winml-make/name                   the Debian package's, likewise
// (duplicates removed).
std::vector<std::filesystem::path> companion_file_places(const std::string& name);

// The first of those places that holds the file, else the first place.
std::filesystem::path find_companion_file(const std::string& name);

}  // namespace winml

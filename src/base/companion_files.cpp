#include "base/companion_files.h"

#include <algorithm>
#include <system_error>

#include "base/system_names.h"
#include "base/this_executable.h"

namespace winml {

namespace fs = std::filesystem;

std::vector<fs::path> companion_file_places(const std::string& name) {
  const fs::path dir = this_executable().parent_path();
  std::vector<fs::path> places;
  auto add = [&](const fs::path& p) {
    const fs::path normal = p.lexically_normal();
    if (std::find(places.begin(), places.end(), normal) == places.end()) places.push_back(normal);
  };
  add(dir / name);
  add(dir / ".." / "lib" / "winml-make" / name);
  add(fs::path(WINML_INSTALL_PREFIX) / "lib" / "winml-make" / name);
  if (*system_names::kPackageLibraryDir) add(fs::path(system_names::kPackageLibraryDir) / name);
  return places;
}

fs::path find_companion_file(const std::string& name) {
  const auto places = companion_file_places(name);
  std::error_code ec;
  for (const auto& p : places)
    if (fs::exists(p, ec)) return p;
  return places.front();
}

}  // namespace winml

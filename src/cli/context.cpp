#include "cli/context.h"

#include <algorithm>

#include "pipeline/code_digest.h"
#include "base/path_text.h"

namespace winml::cli {

namespace fs = std::filesystem;

fs::path Context::project_dir() const {
  return fs::absolute(directory.empty() ? fs::current_path() : from_utf8(directory)).lexically_normal();
}

fs::path Context::config_file() const {
  if (config.empty()) return {};
  return fs::absolute(from_utf8(config)).lexically_normal();
}

std::string version_string() {
  std::string out =
      std::string("winml-make ") + WINML_VERSION + "\ncode digests (in the keys of the stages that run the code):";
  for (const auto& unit : pipeline::code_units())
    out += "\n  " + std::string(unit.name) + std::string(24 - std::min<std::size_t>(23, unit.name.size()), ' ') +
           std::string(unit.digest);
  return out;
}

}  // namespace winml::cli

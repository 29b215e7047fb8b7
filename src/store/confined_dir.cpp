#include "store/confined_dir.h"

#include "base/error.h"
#include "base/path_text.h"

namespace winml::store {

const fs::path& ConfinedDir::root() const {
  std::call_once(resolved_, [this] { root_ = disk_.resolve(given_); });
  return root_;
}

bool ConfinedDir::contains(const fs::path& p) const {
  const fs::path abs = fs::absolute(p).lexically_normal();
  fs::path name = abs.filename();
  if (name.empty() || name == "." || name == "..") return false;
  const fs::path where = disk_.resolve(abs.parent_path()) / name;
  const fs::path rel = where.lexically_relative(root());
  return !rel.empty() && rel.is_relative() && *rel.begin() != ".." && *rel.begin() != ".";
}

void ConfinedDir::require(const fs::path& p, const char* action) const {
  if (!contains(p))
    throw BuildError(file_error(to_utf8(p), std::string("refusing to ") + action + " it: it lies outside " +
                                                to_utf8(root()) + ", the only folder this build may change"));
}

bool ConfinedDir::remove_file(const fs::path& p) const {
  require(p, "delete");
  return disk_.remove_file(p);
}

void ConfinedDir::remove_tree(const fs::path& p) const {
  require(p, "delete");
  disk_.remove_tree(p);
}

}  // namespace winml::store

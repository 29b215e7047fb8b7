#include "base/confined_dir.h"

#include "base/error.h"

namespace winml {

namespace {
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p).lexically_normal() : r;
}
}  // namespace

const fs::path& ConfinedDir::root() const {
  std::call_once(resolved_, [this] { root_ = resolved(given_); });
  return root_;
}

bool ConfinedDir::contains(const fs::path& p) const {
  const fs::path abs = fs::absolute(p).lexically_normal();
  fs::path name = abs.filename();
  if (name.empty() || name == "." || name == "..") return false;
  const fs::path where = resolved(abs.parent_path()) / name;
  const fs::path rel = where.lexically_relative(root());
  return !rel.empty() && rel.is_relative() && *rel.begin() != ".." && *rel.begin() != ".";
}

void ConfinedDir::require(const fs::path& p, const char* action) const {
  if (!contains(p))
    throw BuildError(file_error(p.string(), std::string("refusing to ") + action + " it: it lies outside " +
                                                root().string() + ", the only folder this build may change"));
}

bool ConfinedDir::remove_file(const fs::path& p) const {
  require(p, "delete");
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(p, ec))) return false;  // a folder is never ours to remove here
  return fs::remove(p, ec);
}

void ConfinedDir::remove_tree(const fs::path& p) const {
  require(p, "delete");
  std::error_code ec;
  fs::remove_all(p, ec);
}

}  // namespace winml

// The folder a build owns (its output directory, or the cache): every file
// the tool deletes, and every folder it writes into, is checked to lie inside
// it after the symlinks of its parent folders are resolved. No model name,
// record or symlink can then lead a delete or a write anywhere else.
#pragma once

#include <filesystem>
#include <mutex>

#include "store/disk.h"

namespace winml::store {

namespace fs = std::filesystem;

class ConfinedDir {
 public:
  // `root` need not exist yet; its own symlinks are resolved once, when
  // first needed (a no-op build never is: that is a readlink per folder).
  explicit ConfinedDir(fs::path root, DiskInterface& disk = real_disk()) : given_(std::move(root)), disk_(disk) {}

  const fs::path& root() const;

  // True when `p` lies strictly inside the root. `p` itself may be a symlink:
  // deleting or renaming over it replaces the link, not what it points to.
  bool contains(const fs::path& p) const;

  // Throws BuildError naming `p` and the root unless contains(p); `action`
  // says what was refused ("delete", "write into").
  void require(const fs::path& p, const char* action) const;

  // Removes one file or symlink (never a folder) inside the root. False when
  // it was not there. Throws BuildError for a path outside.
  bool remove_file(const fs::path& p) const;

  // Removes a folder of the tool's own (staging, records) and everything in it.
  void remove_tree(const fs::path& p) const;

 private:
  fs::path given_;
  DiskInterface& disk_;
  mutable std::once_flag resolved_;
  mutable fs::path root_;
};

}  // namespace winml::store

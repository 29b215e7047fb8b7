#include "pipeline/killed_build_sweep.h"

#include "base/atomic_file.h"
#include "pipeline/layout.h"
#include "store/confined_dir.h"

namespace winml::pipeline {

namespace fs = std::filesystem;

namespace {

// Temporaries in `dir` and, `depth` folders down, in its subfolders (never
// through a symlink, never into the state folder: it has its own rule).
void remove_temp_files(const store::DiskInterface& disk, const store::ConfinedDir& owned, const fs::path& dir,
                       int depth) {
  for (const auto& e : disk.list_dir(dir)) {
    const fs::path p = dir / e.name;
    if (is_temp_name(p)) owned.remove_tree(p);
    else if (depth > 0 && e.kind == store::EntryKind::kDirectory && e.name != kStateDir)
      remove_temp_files(disk, owned, p, depth - 1);
  }
}

}  // namespace

void sweep_killed_build(store::DiskInterface& disk, const fs::path& output_dir) {
  const store::ConfinedDir owned(output_dir, disk);
  remove_temp_files(disk, owned, output_dir, 1);
  remove_temp_files(disk, owned, output_dir / kStateDir, 1);
  owned.remove_tree(output_dir / kStateDir / "staging");
}

}  // namespace winml::pipeline

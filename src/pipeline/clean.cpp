#include "pipeline/clean.h"

#include <algorithm>
#include <map>

#include "base/path_text.h"
#include "pipeline/layout.h"
#include "store/confined_dir.h"

namespace winml::pipeline {

namespace {

// The entries of `dir` (names, sorted): what is left once the recorded files are gone.
std::vector<std::string> entries_of(const store::DiskInterface& disk, const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : disk.list_dir(dir)) names.push_back(e.name);
  return names;
}

// `path` is a folder itself, not a symlink to one.
bool is_real_folder(const store::DiskInterface& disk, const fs::path& path) {
  for (const auto& e : disk.list_dir(path.parent_path()))
    if (e.name == to_utf8(path.filename())) return e.kind == store::EntryKind::kDirectory;
  return false;
}

}  // namespace

std::vector<CleanedModel> clean_models(BuildSession& session, const graph::ModelSelection& models) {
  store::BuildState& state = session.state();
  store::DiskInterface& disk = *session.options().disk;
  const store::ConfinedDir owned(session.plan().output_dir, disk);
  std::map<std::string, std::vector<std::string>> records;  // model -> its record ids
  for (const auto& id : state.node_ids()) {
    const std::string model = id.substr(0, id.find('/'));
    if (models.contains(model)) records[model].push_back(id);
  }
  // A configured model's folder goes too once empty, records or not (a
  // second clean, after the user took their own files out of it).
  for (const auto& model : models.is_every_model()
                               ? session.plan().graph.models
                               : std::vector<std::string>(models.names().begin(), models.names().end()))
    records[model];
  std::vector<CleanedModel> out;
  for (const auto& [model, ids] : records) {
    CleanedModel c;
    c.name = model;
    c.dir = session.model_dir(model);
    if (!owned.contains(c.dir / kManifestFile)) {  // e.g. the model's folder was replaced by a symlink
      c.problem = "refusing to delete in " + to_utf8(c.dir) + ": it lies outside " + to_utf8(owned.root());
      out.push_back(std::move(c));
      continue;
    }
    for (const auto& id : ids) {
      if (auto rec = state.find(id))
        for (const auto& o : rec->outputs) {
          const fs::path file = c.dir / o.name;
          const std::uint64_t size = disk.stat(to_utf8(file)).size;  // 0 when missing
          if (owned.remove_file(file)) {
            ++c.files;
            c.bytes += size;
          }
          state.stat_cache().forget(file);
        }
      state.erase(id);
      owned.remove_file(session.state_dir() / "logs" / (model + "." + id.substr(id.find('/') + 1) + ".log"));
    }
    const bool is_dir = is_real_folder(disk, c.dir);
    if (!is_dir && ids.empty()) continue;  // nothing of it here
    // Only an empty folder goes: anything left is not ours.
    std::vector<std::string> left = is_dir ? entries_of(disk, c.dir) : std::vector<std::string>{};
    if (is_dir && left.empty() && owned.contains(c.dir)) {
      disk.remove(c.dir);  // an empty folder
      c.dir_removed = !is_real_folder(disk, c.dir);
    }
    if (is_dir && !c.dir_removed) {
      c.other_count = left.size();
      left.resize(std::min<std::size_t>(left.size(), 5));
      c.others = std::move(left);
    }
    out.push_back(std::move(c));
  }
  state.save();
  return out;
}

}  // namespace winml::pipeline

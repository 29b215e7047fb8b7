#include "pipeline/clean.h"

#include <map>

#include "base/confined_dir.h"
#include "pipeline/layout.h"

namespace winml::pipeline {

std::vector<CleanedModel> clean_models(BuildSession& session, const std::set<std::string>& models) {
  store::BuildState& state = session.state();
  const ConfinedDir owned(session.plan().output_dir);
  std::map<std::string, std::vector<std::string>> records;  // model -> its record ids
  for (const auto& id : state.node_ids()) {
    const std::string model = id.substr(0, id.find('/'));
    if (models.empty() || models.count(model)) records[model].push_back(id);
  }
  std::vector<CleanedModel> out;
  std::error_code ec;
  for (const auto& [model, ids] : records) {
    CleanedModel c;
    c.name = model;
    c.dir = session.model_dir(model);
    if (!owned.contains(c.dir / kManifestFile)) {  // e.g. the model's folder was replaced by a symlink
      c.problem = "refusing to delete in " + c.dir.string() + ": it lies outside " + owned.root().string();
      out.push_back(std::move(c));
      continue;
    }
    for (const auto& id : ids) {
      if (auto rec = state.find(id))
        for (const auto& o : rec->outputs) {
          const fs::path file = c.dir / o.name;
          const auto size = fs::file_size(file, ec);
          if (owned.remove_file(file)) {
            ++c.files;
            c.bytes += ec ? 0 : size;
          }
          state.stat_cache().forget(file);
        }
      state.erase(id);
      owned.remove_file(session.state_dir() / "logs" / (model + "." + id.substr(id.find('/') + 1) + ".log"));
    }
    // Only an empty folder goes: anything left is not ours.
    c.dir_removed = owned.contains(c.dir) && fs::is_directory(fs::symlink_status(c.dir, ec)) && fs::remove(c.dir, ec);
    out.push_back(std::move(c));
  }
  state.save();
  return out;
}

}  // namespace winml::pipeline

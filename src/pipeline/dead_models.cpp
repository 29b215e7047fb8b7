#include "pipeline/dead_models.h"

#include <map>
#include <set>

#include "pipeline/layout.h"

namespace winml::pipeline {

std::vector<DeadModel> dead_models(BuildSession& session) {
  const auto& models = session.plan().graph.models;
  const std::set<std::string> configured(models.begin(), models.end());
  std::map<std::string, DeadModel> dead;
  auto entry = [&](const std::string& model) -> DeadModel& {
    DeadModel& m = dead[model];
    m.name = model;
    m.dir = session.model_dir(model);
    return m;
  };
  store::BuildState& state = session.state();
  for (const auto& id : state.node_ids()) {
    const std::string model = id.substr(0, id.find('/'));
    if (configured.count(model)) continue;
    DeadModel& m = entry(model);
    if (auto rec = state.find(id))
      for (const auto& o : rec->outputs) {
        ++m.files;
        m.bytes += o.size;
      }
  }
  // Folders the records do not know: a model folder always holds a manifest.
  const store::DiskInterface& disk = *session.options().disk;
  for (const auto& e : disk.list_dir(session.plan().output_dir)) {
    if (e.name == kStateDir || configured.count(e.name) || dead.count(e.name)) continue;
    if (e.kind != store::EntryKind::kDirectory) continue;  // a symlink is never a model's folder
    const auto manifest = session.plan().output_dir / e.name / kManifestFile;
    if (disk.is_plain_file(manifest)) entry(e.name).recorded = false;
  }
  std::vector<DeadModel> out;
  for (auto& [name, m] : dead) out.push_back(std::move(m));
  return out;
}

}  // namespace winml::pipeline

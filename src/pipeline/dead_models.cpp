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
  std::error_code ec;
  for (fs::directory_iterator it(session.plan().output_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == kStateDir || configured.count(name) || dead.count(name)) continue;
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    if (fs::is_regular_file(it->path() / kManifestFile, ec)) entry(name).recorded = false;
  }
  std::vector<DeadModel> out;
  for (auto& [name, m] : dead) out.push_back(std::move(m));
  return out;
}

}  // namespace winml::pipeline

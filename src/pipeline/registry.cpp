#include "pipeline/registry.h"

namespace winml::pipeline {

StageRegistry StageRegistry::deferred(std::string identity, std::vector<std::filesystem::path> code_files,
                                      std::function<void(StageRegistry&)> load) {
  StageRegistry r;
  r.deferred_ = std::make_shared<Deferred>();
  r.deferred_->identity = std::move(identity);
  r.deferred_->load = std::move(load);
  r.code_files_ = std::move(code_files);
  return r;
}

std::shared_ptr<Stage> StageRegistry::find(const std::string& kind) const {
  if (deferred_) {
    Deferred& d = *deferred_;
    std::call_once(d.once, [&d] {
      auto loaded = std::make_unique<StageRegistry>();
      d.load(*loaded);
      d.loaded = std::move(loaded);
    });
    return d.loaded->find(kind);
  }
  auto it = stages_.find(kind);
  return it == stages_.end() ? nullptr : it->second;
}

std::string StageRegistry::fingerprint() const {
  if (deferred_) return deferred_->identity;
  std::string out;
  for (const auto& [kind, stage] : stages_) out += kind + "=" + stage->implementation() + ";";
  return out;
}

}  // namespace winml::pipeline

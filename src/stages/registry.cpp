#include "stages/registry.h"

namespace winml::stages {

std::shared_ptr<Stage> StageRegistry::find(const std::string& kind) const {
  auto it = stages_.find(kind);
  return it == stages_.end() ? nullptr : it->second;
}

std::string StageRegistry::fingerprint() const {
  std::string out;
  for (const auto& [kind, stage] : stages_) out += kind + "=" + stage->implementation() + ";";
  return out;
}

}  // namespace winml::stages

#include "stages/registry.h"

namespace winml::stages {

std::shared_ptr<Stage> StageRegistry::find(const std::string& slot) const {
  auto it = stages_.find(slot);
  return it == stages_.end() ? nullptr : it->second;
}

std::string StageRegistry::fingerprint() const {
  std::string out;
  for (const auto& [slot, stage] : stages_)
    out += slot + "=" + stage->implementation() + ";";
  return out;
}

}  // namespace winml::stages

// The optimize stage of a build: export.onnx -> optimized.onnx through
// optimize_model, configured by [optimize] and the target EP ([compile] ep).
#pragma once

#include "stages/stage.h"

namespace winml::stages {

class OptimizeStage : public Stage {
 public:
  std::string implementation() const override { return "winml-optimize"; }
  int version() const override { return 1; }
  // [optimize] picks the passes; [compile] ep decides contrib-op fusions.
  std::vector<std::string> config_keys() const override { return {"optimize", "compile.ep"}; }
  // The rules the passes read: presets and the target EP's table.
  std::map<std::string, std::string> key_values(const config::TargetConfig& config) const override;
  // Metrics: the optimization report (passes, rewrites, node counts, rounds).
  StageResult run(const StageContext& ctx) override;
};

}  // namespace winml::stages

// The optimize stage of a build: export.onnx -> optimized.onnx through
// optimize_model, configured by [optimize] and the target EP ([compile] ep).
#pragma once

#include "pipeline/stage.h"

namespace winml::stages {

class OptimizeStage : public pipeline::Stage {
 public:
  std::string implementation() const override { return "winml-optimize"; }
  // [optimize] picks the passes, presets.toml their levels; [compile] ep and
  // its table decide contrib-op fusions.
  pipeline::Declarations declare(const config::ModelSettings& config) const override;
  // Metrics: the optimization report (passes, rewrites, node counts, rounds).
  pipeline::StageResult run(const pipeline::StageContext& ctx) override;
};

}  // namespace winml::stages

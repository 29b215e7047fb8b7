// The analyze stage of a build: analyze_result.json for the model the
// optimize stage produced, and the optimization flags the target EP
// ([compile] ep) would benefit from, for the `[build] auto` loop.
#pragma once

#include "pipeline/stage.h"

namespace winml::stages {

class AnalyzeStage : public pipeline::Stage {
 public:
  std::string implementation() const override { return "winml-analyze"; }
  // The target EP and device; [optimize] to leave out flags already enabled;
  // every EP table and the presets, which the analysis reads.
  pipeline::Declarations declare(const config::ModelSettings& config) const override;
  // Writes ctx.output (analyze_result.json, without timestamp: reproducible).
  // Metrics: "discovered_flags" {pass: true} not yet enabled by [optimize],
  // "detected_pattern_count", and the target EP's "runtime_support".
  pipeline::StageResult run(const pipeline::StageContext& ctx) override;
};

}  // namespace winml::stages

// The `[build] auto = true` loop, run inside the optimize node:
//
//   optimize(export.onnx, passes + flags) -> analyze(result) -> new flags?
//     yes: add them and optimize export.onnx again; no: done
//
// bounded by `[build] max_auto_iterations` analyze rounds. Every round
// re-optimizes the original input, so the final model equals what a single
// optimize with the recorded flags produces: winml_build_config.json (flags
// merged into [optimize], auto = false) replays to identical bytes. Flags the
// user set explicitly in [optimize] always win over discovered ones. With no
// analyze implementation the loop runs optimize once and discovers nothing.
#pragma once

#include <map>
#include <memory>

#include "pipeline/stage.h"

namespace winml::pipeline {

class AutoOptimizeStage : public Stage {
 public:
  AutoOptimizeStage(std::shared_ptr<Stage> optimize, std::shared_ptr<Stage> analyze)
      : optimize_(std::move(optimize)), analyze_(std::move(analyze)) {}
  std::string implementation() const override;
  // What optimize and analyze declare, merged, and the loop's own keys.
  Declarations declare(const config::ModelSettings& config) const override;
  // Metrics: the optimize stage's, plus "auto": true, "analyze_iterations",
  // "discovered_flags" (applied) and "unapplied_flags" (found in the last
  // allowed round).
  StageResult run(const StageContext& ctx) override;

 private:
  std::shared_ptr<Stage> optimize_, analyze_;
};

// The optimize passes with discovered `flags` added (explicit ones win).
std::map<std::string, bool> merge_flags(const std::map<std::string, bool>& explicit_passes,
                                        const std::map<std::string, bool>& flags);

}  // namespace winml::pipeline

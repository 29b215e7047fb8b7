// Stand-ins until the real optimize/quantize/compile stages land, and the
// package stage. A passthrough copies its input model unchanged (with its
// sidecars) and says so in the manifest ("implementation": "passthrough"),
// so a build never presents an unprocessed model as optimized or quantized.
#pragma once

#include "stages/stage.h"

namespace winml::stages {

class PassthroughStage : public Stage {
 public:
  explicit PassthroughStage(std::string section) : section_(std::move(section)) {}
  std::string implementation() const override { return "passthrough"; }
  int version() const override { return 1; }
  // The section the real stage will read: editing it reruns the node (and
  // early cutoff stops there, since the copy is identical).
  std::vector<std::string> config_keys() const override { return {section_}; }
  StageResult run(const StageContext& ctx) override;

 private:
  std::string section_;
};

// model.onnx: a copy of the last stage that ran, sidecars renamed after it.
class PackageStage : public Stage {
 public:
  std::string implementation() const override { return "package"; }
  int version() const override { return 1; }
  std::vector<std::string> config_keys() const override { return {}; }
  StageResult run(const StageContext& ctx) override;
};

}  // namespace winml::stages

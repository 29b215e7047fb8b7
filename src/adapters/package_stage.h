// The package stage: model.onnx, a copy of the last stage that ran, with
// every sidecar (.onnx.data, EPContext .bin files) renamed after it and the
// references inside rewritten, so the output folder (or model.onnx with its
// sidecars) can be moved anywhere.
#pragma once

#include "stages/stage.h"

namespace winml::stages {

class PackageStage : public Stage {
 public:
  std::string implementation() const override { return "package"; }
  Declarations declare(const config::TargetConfig& config) const override;
  StageResult run(const StageContext& ctx) override;
};

}  // namespace winml::stages

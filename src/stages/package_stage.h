// The package stage: model.onnx, a copy of the last stage that ran, with
// every sidecar (.onnx.data, EPContext .bin files) renamed after it and the
// references inside rewritten, so the output folder (or model.onnx with its
// sidecars) can be moved anywhere.
#pragma once

#include "pipeline/stage.h"

namespace winml::stages {

class PackageStage : public pipeline::Stage {
 public:
  std::string implementation() const override { return "package"; }
  pipeline::Declarations declare(const config::ModelSettings& config) const override;
  pipeline::StageResult run(const pipeline::StageContext& ctx) override;
};

}  // namespace winml::stages

// The quantize stage of a build: optimized.onnx -> quantized.onnx (QDQ with
// calibrated scales, or float16), per the model's [quantize] section. The
// report (nodes_quantized, nodes_skipped, calibration_time_seconds, the
// accuracy table against the float model) lands in build_manifest.json.
#pragma once

#include "pipeline/stage.h"

namespace winml::stages {

class QuantizeStage : public pipeline::Stage {
 public:
  std::string implementation() const override { return "winml-quantize"; }
  // [quantize]; [compile] ep picks the operator table; [model] dims resolve
  // symbolic input dimensions of generated calibration samples; the
  // calibration samples directory, when one is configured.
  pipeline::Declarations declare(const config::ModelSettings& config) const override;
  pipeline::StageResult run(const pipeline::StageContext& ctx) override;
};

}  // namespace winml::stages

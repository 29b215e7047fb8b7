// The quantize stage of a build: optimized.onnx -> quantized.onnx (QDQ with
// calibrated scales, or float16), per the target's [quantize] section. The
// report (nodes_quantized, nodes_skipped, calibration_time_seconds, the
// accuracy table against the float model) lands in build_manifest.json.
#pragma once

#include "stages/stage.h"

namespace winml::stages {

class QuantizeStage : public Stage {
 public:
  std::string implementation() const override { return "winml-quantize"; }
  // [quantize]; [compile] ep picks the operator table; [model] dims resolve
  // symbolic input dimensions of generated calibration samples; the
  // calibration samples directory, when one is configured.
  Declarations declare(const config::TargetConfig& config) const override;
  StageResult run(const StageContext& ctx) override;
};

}  // namespace winml::stages

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
  int version() const override { return 1; }
  // [compile] ep picks the operator table; [model] dims resolve symbolic
  // input dimensions of generated calibration samples.
  std::vector<std::string> config_keys() const override { return {"quantize", "compile.ep", "model.dims"}; }
  // The calibration samples directory, when one is configured.
  std::vector<graph::InputDecl> extra_inputs(const config::TargetConfig& config) const override;
  // The quantizer's algorithm version and the target EP's operator table.
  std::map<std::string, std::string> key_values(const config::TargetConfig& config) const override;
  StageResult run(const StageContext& ctx) override;
};

}  // namespace winml::stages

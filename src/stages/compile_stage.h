// compile (and validate) as a build stage: compiled.onnx from the previous
// stage's model, per the model's [compile] section. The metrics (backend,
// partitions or blobs with digests, validation mode and outputs) land in
// build_manifest.json; progress lines and a vendor compiler's output go to
// the stage log.
#pragma once

#include "pipeline/stage.h"

namespace winml::stages {

class CompileStage : public pipeline::Stage {
 public:
  std::string implementation() const override { return "winml-compile"; }
  // [compile] and its environment, [model] dims, the EP's table (aot_compile
  // decides the default backend); for backend = "ort", what ONNX Runtime
  // reports of itself and the EP (found here: before any stage runs).
  pipeline::Declarations declare(const config::ModelSettings& config) const override;
  pipeline::StageResult run(const pipeline::StageContext& ctx) override;
};

}  // namespace winml::stages

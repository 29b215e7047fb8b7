// The export node: obtains export.onnx from an existing model ([model]
// source) or by running the export library's plan ([export] command, or the
// built-in torchvision recipe; see export/export_plan.h).
#pragma once

#include "pipeline/stage.h"

namespace winml::stages {

// Loads the source (which validates it) and saves it with the project's
// external-data threshold, so export.onnx follows the output layout.
class ImportStage : public pipeline::Stage {
 public:
  std::string implementation() const override { return "import"; }
  // The source model and the sidecars it names; [model] source (it lands in the metrics).
  pipeline::Declarations declare(const config::ModelSettings& config) const override;
  pipeline::StageResult run(const pipeline::StageContext& ctx) override;
};

class ExportStage : public pipeline::Stage {
 public:
  std::string implementation() const override { return "export"; }
  // [export]; its inputs (files, directories, glob patterns), the weights
  // file, the declared environment and the torchvision recipe.
  pipeline::Declarations declare(const config::ModelSettings& config) const override;
  pipeline::StageResult run(const pipeline::StageContext& ctx) override;
};

}  // namespace winml::stages

// The export node: obtains export.onnx from an existing model ([model]
// source) or by running the export library's plan ([export] command, or the
// built-in torchvision recipe; see export/export_plan.h).
#pragma once

#include "stages/stage.h"

namespace winml::stages {

// Loads the source (which validates it) and saves it with the project's
// external-data threshold, so export.onnx follows the output layout.
class ImportStage : public Stage {
 public:
  std::string implementation() const override { return "import"; }
  int version() const override { return 1; }
  std::vector<std::string> config_keys() const override { return {"build.external_data_threshold_mib"}; }
  // The source model and the sidecars it names.
  std::vector<graph::InputDecl> extra_inputs(const config::TargetConfig& config) const override;
  StageResult run(const StageContext& ctx) override;
};

class ExportStage : public Stage {
 public:
  std::string implementation() const override { return "export"; }
  // 2: the exporter's model is re-saved (deterministic bytes, threshold).
  int version() const override { return 2; }
  std::vector<std::string> config_keys() const override { return {"export", "build.external_data_threshold_mib"}; }
  // [export] inputs (files, directories, glob patterns) and the weights file.
  std::vector<graph::InputDecl> extra_inputs(const config::TargetConfig& config) const override;
  std::vector<std::string> environment(const config::TargetConfig& config) const override;
  // The torchvision recipe's text.
  std::map<std::string, std::string> key_values(const config::TargetConfig& config) const override;
  StageResult run(const StageContext& ctx) override;
};

}  // namespace winml::stages

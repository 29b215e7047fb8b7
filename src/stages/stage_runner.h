// Runs graph nodes through the registered stages (the NodeRunner of real builds).
#pragma once

#include <filesystem>

#include "graph/runner.h"
#include "pipeline/build_session.h"

namespace winml::stages {

namespace fs = std::filesystem;

// A stage's artifact: a model (.onnx) with the sidecars it names, else the file alone.
std::vector<std::string> artifact_files(const fs::path& primary);

class StageRunner : public graph::NodeRunner {
 public:
  explicit StageRunner(pipeline::BuildSession& session) : session_(session) {}
  graph::RunResult run(const graph::RunRequest& request) override;
  // A model artifact with its sidecars (model::model_files); other files alone.
  std::vector<std::string> model_files(const fs::path& model) override;
  std::vector<std::string> artifact_files(const fs::path& primary) override { return stages::artifact_files(primary); }

 private:
  pipeline::BuildSession& session_;
};

}  // namespace winml::stages

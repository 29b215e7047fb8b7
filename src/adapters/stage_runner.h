// Runs graph nodes through the registered stages (the NodeRunner of real builds).
#pragma once

#include "graph/runner.h"
#include "stages/build_session.h"

namespace winml::stages {

class StageRunner : public graph::NodeRunner {
 public:
  explicit StageRunner(BuildSession& session) : session_(session) {}
  graph::RunResult run(const graph::RunRequest& request) override;
  // A model artifact with its sidecars (model::model_files); other files alone.
  std::vector<std::string> model_files(const fs::path& model) override;

 private:
  BuildSession& session_;
};

}  // namespace winml::stages

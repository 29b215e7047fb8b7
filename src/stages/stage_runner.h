// Runs graph nodes through the registered stages (the NodeRunner of real builds).
#pragma once

#include "graph/runner.h"
#include "stages/session.h"

namespace winml::stages {

class StageRunner : public graph::NodeRunner {
 public:
  explicit StageRunner(Session& session) : session_(session) {}
  graph::RunResult run(const graph::RunRequest& request) override;
  // A model artifact with its sidecars (model::model_files); other files alone.
  std::vector<std::string> model_files(const fs::path& model) override;

 private:
  Session& session_;
};

}  // namespace winml::stages

// Which implementation runs each stage. Node kinds (graph::Node::kind):
//
//   import              export from [model] source (an existing .onnx)
//   export              export with [export] command or torchvision
//   analyze             optional: writes analyze_result.json and discovers optimization flags
//   optimize, quantize, compile, package
//
// A missing optional kind (analyze) is reported as skipped; the others are required.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "stages/stage.h"

namespace winml::stages {

class StageRegistry {
 public:
  void set(const std::string& kind, std::shared_ptr<Stage> stage) { stages_[kind] = std::move(stage); }
  std::shared_ptr<Stage> find(const std::string& kind) const;
  // "kind=implementation;..." over every kind: part of the plan memo,
  // so a binary with other stages never reuses a stored plan.
  std::string fingerprint() const;

 private:
  std::map<std::string, std::shared_ptr<Stage>> stages_;
};

// The stages this binary ships (builtin.cpp).
const StageRegistry& builtin_stages();
void register_builtin_stages(StageRegistry& registry);

}  // namespace winml::stages

// Which implementation runs each stage. Node kinds (graph::Node::kind):
//
//   import              export from [model] source (an existing .onnx)
//   export              export with [export] command or torchvision
//   analyze             optional: writes analyze_result.json and discovers optimization flags
//   optimize, quantize, compile, package
//
// A missing optional kind (analyze) is reported as skipped; the others are required.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pipeline/stage.h"

namespace winml::pipeline {

class StageRegistry {
 public:
  StageRegistry() = default;
  // Stages whose code is loaded on demand: `load` registers them when one is
  // first looked up (thread-safe). Until then and after, `identity` is the
  // fingerprint, and `code_files` hold the stages' code (a plan memo key
  // hashes their content, as it hashes the running binary's).
  static StageRegistry deferred(std::string identity, std::vector<std::filesystem::path> code_files,
                                std::function<void(StageRegistry&)> load);

  void set(const std::string& kind, std::shared_ptr<Stage> stage) { stages_[kind] = std::move(stage); }
  std::shared_ptr<Stage> find(const std::string& kind) const;
  // "kind=implementation;..." over every kind: part of the plan memo,
  // so a binary with other stages never reuses a stored plan.
  std::string fingerprint() const;
  const std::vector<std::filesystem::path>& code_files() const { return code_files_; }

 private:
  struct Deferred {
    std::string identity;
    std::function<void(StageRegistry&)> load;
    std::once_flag once;
    std::unique_ptr<StageRegistry> loaded;
  };
  std::map<std::string, std::shared_ptr<Stage>> stages_;
  std::shared_ptr<Deferred> deferred_;
  std::vector<std::filesystem::path> code_files_;
};

}  // namespace winml::pipeline

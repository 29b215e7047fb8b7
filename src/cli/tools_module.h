// The model tools: the stages (src/stages) and every command that reads or
// writes ONNX (src/tools), built as a module of their own that this binary
// opens the first time it needs one of them. A build with nothing to run, a
// status or a clean never loads it, nor libonnx and libprotobuf behind it:
// where a page fault is dear, loading those costs more than a whole no-op
// build (docs/architecture.md, "Two halves").
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>

#include "base/system_names.h"
#include "graph/runner.h"
#include "pipeline/build_session.h"
#include "pipeline/registry.h"

namespace winml::rules {
class Rules;
}

namespace winml::cli {

// What the module exports, under the C name kToolsEntryPoint. Both halves of
// one build share the stamp; a module from another build is refused.
struct ToolsModule {
  const char* stamp;
  // The whole command line (every subcommand), as winml-make's main.
  int (*main)(int argc, char** argv);
  void (*register_stages)(pipeline::StageRegistry& registry);
  std::unique_ptr<graph::NodeRunner> (*make_runner)(pipeline::BuildSession& session);
  // The module holds its own copy of the process's active rules.
  void (*use_rules)(const rules::Rules& rules);
  // graph::NodeRunner::artifact_files without a session (for `cache verify`).
  std::vector<std::string> (*artifact_files)(const std::filesystem::path& primary);
  // This process as a build's worker (base/worker_process.h): runs the stage
  // it is handed and exits.
  int (*serve_worker)();
};

inline constexpr const char* kToolsEntryPoint = "winml_make_tools";
inline constexpr const char* kToolsFileName = system_names::kToolsModule;

// Where the module is: the first of base/companion_files.h's places that
// holds it (beside this binary, then ../lib/winml-make/ from it, ...).
std::filesystem::path tools_module_path();
// Loaded once, from the first place that holds this build's module; else a
// BuildError naming every place tried, what was there, and what to copy.
const ToolsModule& tools_module();

// The module's stages, loaded when a plan is made or a stage runs.
const pipeline::StageRegistry& tool_stages();

// Runs nodes through the module's runner, loaded at the first node that runs
// (or the first model whose sidecars must be read).
class ToolRunner : public graph::NodeRunner {
 public:
  explicit ToolRunner(pipeline::BuildSession& session) : session_(session) {}
  graph::RunResult run(const graph::RunRequest& request) override { return runner().run(request); }
  std::vector<std::string> model_files(const std::filesystem::path& model) override {
    return runner().model_files(model);
  }
  std::vector<std::string> artifact_files(const std::filesystem::path& primary) override {
    return runner().artifact_files(primary);
  }

 private:
  graph::NodeRunner& runner();
  pipeline::BuildSession& session_;
  std::once_flag once_;
  std::unique_ptr<graph::NodeRunner> runner_;
};

}  // namespace winml::cli

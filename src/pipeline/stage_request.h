// A stage's run as a request a worker process can be handed
// (base/worker_process.h, stages/stage_worker.h): which stage, what it
// declared, and the paths of the run, as one record.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/declarations.h"

namespace winml::pipeline {

namespace fs = std::filesystem;

// Everything the worker needs besides this program and the environment it
// inherits. The worker makes the stage's view itself (declared_view), from
// the project's rules and the environment, as the build would.
struct StageRequest {
  std::string kind;                   // graph::Node::kind
  DeclaredContext declared;
  fs::path source_dir;                // the project: its rules/, where the config's paths resolve
  fs::path config_file;
  fs::path project_dir;               // StageContext::project_dir
  fs::path input;
  std::vector<fs::path> input_files;
  fs::path output;
  std::vector<fs::path> files;
  fs::path log_file;
  fs::path progress_file;             // base/progress.h
  friend bool operator==(const StageRequest&, const StageRequest&) = default;
};

std::string encode_stage_request(const StageRequest& request);
// Nothing when `text` is not a whole request.
std::optional<StageRequest> decode_stage_request(std::string_view text);

}  // namespace winml::pipeline

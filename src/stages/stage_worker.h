// The worker's side of a stage run (stages/stage_runner.cpp hands the
// request, base/worker_process.h starts the worker).
#pragma once

#include <string>

namespace winml::stages {

// Runs the stage the encoded pipeline::StageRequest names and answers
// "<outcome>\n<text>": ok (the metrics), interrupted, input or build (the
// error). Never throws.
std::string serve_stage_request(const std::string& encoded);

}  // namespace winml::stages

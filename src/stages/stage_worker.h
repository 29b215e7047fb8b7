// The worker's side of a stage run (stages/stage_runner.cpp hands the
// request, base/worker_process.h starts the worker).
#pragma once

#include <string>

#include "base/worker_process.h"

namespace winml::stages {

// Runs the stage the encoded pipeline::StageRequest names and answers
// "<outcome>\n<text>": ok (the metrics), interrupted, input or build (the
// error). Never throws. A stage that ended in an exception other than an
// input error leaves the worker unfit for another request: whatever it held
// may not have been put back.
WorkerAnswer serve_stage_request(const std::string& encoded);

}  // namespace winml::stages

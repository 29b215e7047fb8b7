// The quantizer's models run on the project's CPU runtime (runtime::Session):
// calibration statistics stream from its observer as each value is produced.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "quant/model_runner.h"

namespace winml::quant {

struct RuntimeRunnerOptions {
  int threads = 0;  // 0: one per core
  std::map<std::string, std::int64_t> dims;
};

RunnerFactory runtime_runner_factory(const RuntimeRunnerOptions& options);

}  // namespace winml::quant

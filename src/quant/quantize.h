// The quantize stage as a library call: QDQ quantization calibrated on sample
// data, or float16 conversion, of one model, with a JSON report (what the
// build manifest records) including an accuracy table against the float model.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config.h"
#include "model/model.h"
#include "quant/model_runner.h"

namespace winml::quant {

struct QuantizeContext {
  std::string ep = "cpu";                       // target execution provider (rules/ep/<ep>.toml)
  std::map<std::string, std::int64_t> dims;     // [model] dims, for symbolic input dimensions
  std::filesystem::path base_dir;               // relative calibration_data is resolved against it
  std::string model_path;                       // the input model, for messages
  RunnerFactory runner;                         // executes models; empty: the project's CPU runtime
  int threads = 0;                              // runtime and statistics threads; 0: one per core
  bool accuracy_report = true;                  // compare against the float model
  // Where the quantized weights are written as they are made (an unnamed
  // scratch file, model/spill_file.h) instead of kept in memory; empty:
  // kept in memory. The output's directory, so that saving copies them in
  // the file system.
  std::filesystem::path scratch_dir;
  std::function<void(const std::string&)> log;  // progress lines, optional
};

struct QuantizeResult {
  model::Model model;
  nlohmann::json report;
};

// InputError (nothing written by the caller) for a compiled EPContext input,
// an already-quantized input without `requantize`, or bad calibration data;
// BuildError when quantization itself fails.
QuantizeResult quantize_model(const model::Model& in, const config::QuantizeConfig& config,
                              const QuantizeContext& context);

}  // namespace winml::quant

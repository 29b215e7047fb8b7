// Runs calibration samples through a model and collects the range of every
// requested tensor, one sample at a time.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "quant/calibration/collector.h"
#include "quant/calibration/samples.h"
#include "quant/model_runner.h"

namespace winml::quant {

struct CalibrationResult {
  std::map<std::string, TensorRange> ranges;
  std::vector<std::string> unobserved;  // requested but never produced (e.g. in a branch not taken)
  std::map<std::string, std::vector<double>> channel_means;
  std::size_t samples = 0;
  double seconds = 0;
  double setup_seconds = 0;  // of `seconds`: making the first runner (the plan, its packed weights)
  // Per sample, the model's outputs when kept (CalibrationOptions::keep_outputs_bytes).
  std::vector<std::optional<Feeds>> outputs;
};

// `means`: tensors whose per-channel means are wanted too (name -> channel axis, -1: last).
CalibrationResult calibrate(const model::Model& model, const std::vector<std::string>& tensors,
                            const SampleSource& samples, const CalibrationOptions& options, const RunnerFactory& runner,
                            const std::map<std::string, std::int64_t>& means = {});

// The float32 values of a runtime value (copied only when misaligned).
std::vector<float> float_values(const ValueView& v);

}  // namespace winml::quant

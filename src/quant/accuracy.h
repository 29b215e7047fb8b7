// How far a converted model's outputs are from the float model's over the
// calibration samples: SQNR (signal-to-quantization-noise ratio, dB) and the
// largest absolute error, per output. Accumulated sample by sample in double.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/tensor_file.h"
#include "quant/calibration/samples.h"
#include "quant/model_runner.h"

namespace winml::quant {

struct OutputAccuracy {
  std::string output;
  std::optional<double> sqnr_db;  // empty when the outputs are identical (infinite SQNR)
  double max_abs_error = 0;
  std::size_t elements = 0;
  // Samples on which the converted model's output had another shape: a count
  // that depends on the values (a detector's detections), so not compared.
  std::size_t shape_changed = 0;
  // The float model's output took the same values on every sample (to
  // float32 precision): errors cannot show, so no figure is given.
  bool constant = false;
  std::size_t samples = 0;  // samples whose pair was compared
};

// How far (relative to its magnitude) a reference output may move over the
// samples and still be called constant.
inline constexpr double kConstantTolerance = 1e-5;

// "output 'x' is constant over the N samples: no accuracy figure (...)".
std::string constant_output_message(const OutputAccuracy& a);

class AccuracyMeter {
 public:
  // Adds one sample's pair of outputs (any numeric element type); a pair of
  // different shapes is counted, not compared.
  void add(const std::string& output, const model::TensorFile& reference, const model::TensorFile& candidate);
  std::vector<OutputAccuracy> results() const;  // in output name order

 private:
  struct Sums {
    double signal = 0, noise = 0, max_abs = 0;
    std::size_t n = 0, shape_changed = 0, samples = 0;
    // The first sample's reference values (float32 is all the constant test
    // needs: an LLM's logits are kept once, at half the size of doubles),
    // and how far any later sample's reference moved from them.
    std::vector<float> first;
    double reference_spread = 0, reference_magnitude = 0;
  };
  std::map<std::string, Sums> sums_;
};

// Runs both models on every sample; the reference only for samples whose
// outputs `reference_outputs` (by sample, when not empty) does not hold. The
// candidate's samples run on `workers` runners at once; the results do not
// depend on it.
std::vector<OutputAccuracy> compare_models(const model::Model& reference, const model::Model& candidate,
                                           const SampleSource& samples, const RunnerFactory& runner,
                                           const std::vector<std::optional<Feeds>>& reference_outputs = {},
                                           int workers = 1);

nlohmann::json accuracy_json(const std::vector<OutputAccuracy>& table);
std::string format_accuracy(const std::vector<OutputAccuracy>& table);

// Element values as double (float16 decoded); BuildError for non-numeric types.
std::vector<double> as_doubles(const model::TensorFile& t);

}  // namespace winml::quant

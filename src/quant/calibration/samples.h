// Calibration samples: read one at a time from a directory (one subdirectory
// per sample, <input>.npy or <input>.pb for every model input, '/' in a name
// written as '_'), or generated from a seeded distribution. Samples are
// produced on demand, so memory never depends on how many there are.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "model/onnx.h"
#include "model/tensor_file.h"

namespace winml::quant {

// A model input the samples must provide.
struct InputSpec {
  std::string name;
  std::int32_t dtype = onnx::TensorProto::FLOAT;
  std::vector<std::int64_t> shape;  // -1: any size
  // > 0: the input indexes a table of this many rows (calibration/index_inputs.h);
  // generated values are drawn uniformly from [0, index_rows).
  std::int64_t index_rows = 0;
};

// The graph inputs of `m` (initializers listed as inputs excluded), symbolic
// and unknown dimensions resolved from `dims` (else 1 when `resolve` is set,
// -1 otherwise), with the rows of the tables integer inputs index.
std::vector<InputSpec> model_inputs(const onnx::ModelProto& m, const std::map<std::string, std::int64_t>& dims,
                                    bool resolve);

class SampleSource {
 public:
  virtual ~SampleSource() = default;
  virtual std::size_t size() const = 0;
  virtual std::map<std::string, model::TensorFile> sample(std::size_t index) const = 0;
  virtual std::string describe() const = 0;  // for the report
};

// File name of a tensor in a sample directory: '/' (and '\\') become '_'.
std::string sample_file_stem(const std::string& input_name);

// The sample subdirectories used (sorted by name, at most `samples`) and
// every .npy/.pb file in them — the inputs of the quantize step.
std::vector<std::filesystem::path> calibration_sample_dirs(const std::filesystem::path& dir, std::int64_t samples);
std::vector<std::filesystem::path> calibration_files(const std::filesystem::path& dir, std::int64_t samples);

// Samples from `dir`; InputError naming the offending file or directory when
// a sample lacks an input or a file does not match the model input.
std::unique_ptr<SampleSource> directory_samples(const std::filesystem::path& dir, std::int64_t samples,
                                                std::vector<InputSpec> inputs);

struct GeneratorSpec {
  std::string distribution = "uniform";  // or "normal"
  double a = 0.0, b = 1.0;               // [low, high) or (mean, stddev)
  std::uint64_t seed = 0;
};

// `samples` generated tensors per input; `overrides` (quantize.input_tensors)
// replace the model's own declaration of an input.
std::unique_ptr<SampleSource> generated_samples(std::int64_t samples, std::vector<InputSpec> inputs,
                                                const GeneratorSpec& spec);

}  // namespace winml::quant

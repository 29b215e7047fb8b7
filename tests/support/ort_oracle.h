// ONNX Runtime (npm's onnxruntime-node, CPU) as an independent oracle: runs a
// model through tests/ort/ort_run.js and returns its outputs. A missing
// installation fails the test (the fixture.onnxruntime_node test installs it).
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "model/tensor_file.h"

namespace winml::test {

struct OrtOptions {
  std::string opt_level = "disabled";     // disabled | basic | extended | all
  std::filesystem::path optimized_model;  // optimizedModelFilePath, when set
  int threads = 1;
  int repeat = 0;  // timed runs after warm-up (median in report["median_ms"])
};

struct OrtResult {
  bool ok = false;
  std::string error;  // ORT's message when the session could not be created
  std::map<std::string, model::TensorFile> outputs;
  nlohmann::json report;
};

OrtResult run_in_ort(const std::filesystem::path& model, const std::map<std::string, model::TensorFile>& inputs,
                     const OrtOptions& options = {});

// max |a-b| / max(|b|, 1e-3) over float32 tensors of equal shape; infinity on a shape mismatch.
double max_relative_diff(const model::TensorFile& a, const model::TensorFile& b);
double max_abs_diff(const model::TensorFile& a, const model::TensorFile& b);

// The float32 outputs that two runs on different inputs left (nearly) equal,
// each with how far it moved ("y (moved 0, magnitude 0), z (...)"; empty
// when every one varied): less than 1e-5 of its magnitude, or than 1e-5
// (tests/fixtures/varied_outputs.py says why). An output with another shape
// moved; other types are not judged. "no float output" when none was.
std::string outputs_that_do_not_vary(const std::map<std::string, model::TensorFile>& a,
                                                  const std::map<std::string, model::TensorFile>& b);

// A float32 tensor of the given shape, all ones or seeded uniform [-1, 1).
model::TensorFile ones(const std::vector<std::int64_t>& shape);
model::TensorFile random_tensor(const std::vector<std::int64_t>& shape, std::uint32_t seed);

}  // namespace winml::test

// Shared helpers of the pass tests: run chosen passes on a small model and
// check, with ONNX Runtime as the oracle, that the outputs did not change.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/tensor_file.h"
#include "passes/optimize.h"

namespace winml::test {

struct Optimized {
  model::Model model;
  passes::OptimizeReport report;
};

// Optimizes a copy of `proto` with exactly `passes` on top of `level`.
Optimized optimize_with(const onnx::ModelProto& proto, const std::vector<std::string>& passes,
                        const std::string& ep = "", const std::string& level = "none");

// Op type -> count in the main graph.
std::map<std::string, int> op_counts(const onnx::GraphProto& g);
int count_op(const onnx::GraphProto& g, const std::string& op);

// Runs both models in ONNX Runtime on `inputs` and expects every output to
// agree within `tolerance` (max relative difference).
void expect_same_outputs(const onnx::ModelProto& original, const onnx::ModelProto& optimized,
                         const std::map<std::string, model::TensorFile>& inputs, double tolerance = 1e-5);

// libonnx's checker (full check with shape inference) accepts the model.
void expect_checker_accepts(const onnx::ModelProto& m);
// The same for a saved model (external data files are checked next to it).
void expect_checker_accepts(const std::filesystem::path& model_file, const onnx::ModelProto& m);

}  // namespace winml::test

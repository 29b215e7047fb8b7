// Rewrites a planned graph into QDQ form with calibrated ranges: Q/DQ pairs
// on activations (placed right after their producer), quantized weights with
// a DequantizeLinear, int32 biases, scalar scale/zero-point initializers
// (per-channel ones are 1-D), 16-bit Q/DQ in the com.microsoft domain below
// opset 21. Names follow ONNX Runtime's (`<tensor>_QuantizeLinear`,
// `<tensor>_DequantizeLinear_Output`, `<weight>_quantized`, `<tensor>_scale`,
// `<tensor>_zero_point`), made unique against the graph.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/model.h"
#include "quant/calibration/range_methods.h"
#include "quant/graph_info.h"
#include "quant/qdq_plan.h"

namespace winml::quant {

struct ApplyResult {
  std::size_t activation_pairs = 0;        // Q/DQ pairs
  std::size_t quantized_weights = 0;       // constants stored quantized
  std::size_t quantized_biases = 0;        // int32 biases
  std::size_t adjusted_weight_scales = 0;  // weights whose scale was raised so the bias fits int32
  std::size_t corrected_biases = 0;        // biases shifted by bias correction
  std::vector<std::string> uncalibrated;   // planned activations with no range (left float)
  std::string qdq_domain;                  // "" or "com.microsoft"
  std::set<std::string> replaced;          // constants now read through a DequantizeLinear
};

// `model` holds the planned graph (plan_qdq ran on model.proto.graph()) and
// can read its initializers (external data mapped). `info` describes the
// graph before planning.
// `means` holds the per-channel input means plan.corrections need (missing
// ones skip the correction).
ApplyResult apply_qdq(model::Model& model, const QdqPlan& plan, const GraphInfo& info,
                      const std::map<std::string, TensorRange>& ranges, const QdqOptions& options,
                      const std::map<std::string, std::vector<double>>& means = {});

// The same for `graph`, the main graph or a body of it (plan_qdq ran on it).
// A body's quantized copies of outer constants are its own; the outer float
// ones stay until nothing reads them (remove_unused_initializers).
ApplyResult apply_qdq(model::Model& model, onnx::GraphProto& graph, const QdqPlan& plan, const GraphInfo& info,
                      const std::map<std::string, TensorRange>& ranges, const QdqOptions& options,
                      const std::map<std::string, std::vector<double>>& means = {});

// The Q/DQ domain for these types at this opset.
std::string qdq_domain(const QdqOptions& options, std::int64_t opset);

}  // namespace winml::quant

// Where QDQ goes: which nodes are quantized and which of their tensors get a
// QuantizeLinear/DequantizeLinear pair (activations), a quantized initializer
// with a DequantizeLinear (weights), or an int32 initializer (biases) — the
// placement of ONNX Runtime's static QDQ quantizer, decided per operator type:
//
//   Conv, ConvTranspose  input 0 and output: activations; weight per channel
//                        on axis 0 (ConvTranspose: 1); bias int32
//   Gemm                 likewise, weight axis 0 with transB else 1; beta is
//                        folded into the int32 bias
//   MatMul               every input and output; a rank-2 constant B per channel on axis 1
//                        (4-bit weights: in blocks along axis 0, its K)
//   Relu, Clip           removed when activations are asymmetric and the
//                        producer's output feeds only them (the quantization
//                        range clips instead); otherwise input and output
//   Reshape, Transpose, Squeeze, Unsqueeze, Slice, AveragePool, MaxPool, Resize
//                        only after a quantized input; the output reuses the
//                        input's scale and zero point
//   Split                input; outputs reuse its parameters
//   Gather               a constant data input (embedding); output reuses its parameters
//   anything else        every float input and output
//
// Planning mutates the graph only to fold removable activations (renaming
// the producer's output), as the reference quantizer does.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/onnx.h"
#include "quant/graph_info.h"
#include "quant/qtype.h"

namespace winml::quant {

struct QdqOptions {
  QType weight_type = QType::kInt8;
  QType activation_type = QType::kUInt8;
  bool per_channel = false;
  bool weight_symmetric = true;
  bool activation_symmetric = false;
  bool reduce_range = false;
  std::set<std::string> op_types;  // node types to quantize
  std::set<std::string> nodes_to_exclude;
  // DequantizeLinear takes `axis` (opset 13+, or the com.microsoft domain);
  // without it per-channel weights fall back to per tensor.
  bool axis_supported = true;
  // Remove the mean output shift weight rounding causes (see PlannedCorrection).
  bool bias_correction = true;
  // False: weights only (w4a32, w8a32): no activation gets a Q/DQ pair and
  // no bias is quantized; nothing needs calibrating.
  bool quantize_activations = true;
  // 4-bit weights of matrices (MatMul, Gemm) are quantized in blocks of this
  // many elements along the reduced dimension (opset 21); other 4-bit
  // weights per channel.
  std::int64_t block_size = 32;
};

enum class TensorKind { kActivation, kWeight };

struct PlannedTensor {
  std::string name;
  TensorKind kind = TensorKind::kActivation;  // a constant quantized as an activation uses the activation type
  std::string params_from;                    // another tensor whose scale and zero point it reuses
  std::optional<std::int64_t> axis;           // per-channel weights, or the axis of `block`
  std::int64_t block = 0;                     // blocks of this many elements along `axis` (4-bit weights)
};

// One per quantized node reading the bias: a bias shared by several nodes
// gets one int32 copy each, since its scale depends on the node's input and
// weight scales.
struct PlannedBias {
  std::string bias, input, weight;
  float beta = 1.0f;
  int node = -1;  // index of the reading node
};

// Bias correction: rounding W to W_q shifts the node's output by
// (W_q - W) · E[x] on average; subtracting that from the bias removes the
// shift. E[x] is the per-channel mean of the node's input over the
// calibration samples. Applies to Conv, Gemm and MatMul nodes with a constant
// weight and a bias (MatMul: the constant of the Add that follows it).
struct PlannedCorrection {
  enum class Kind { kConv, kGemm, kMatMul };
  Kind kind = Kind::kConv;
  int node = -1;
  std::string input, weight, bias;
  std::int64_t input_axis = 1;  // channel axis of the input (-1: the last)
  std::int64_t group = 1;       // Conv groups
  bool trans_b = false;         // Gemm
  float alpha = 1.0f;           // Gemm
};

struct QdqPlan {
  std::vector<PlannedTensor> tensors;  // in the order they were first requested
  std::vector<PlannedBias> biases;
  std::set<int> quantized_nodes;       // node indices into the graph
  std::set<int> removed_nodes;         // folded activations
  std::map<int, std::string> skipped;  // node index -> why it stays float
  std::set<int> gemm_beta_reset;       // Gemm nodes whose beta moved into the int32 bias
  std::vector<PlannedCorrection> corrections;

  const PlannedTensor* find(const std::string& name) const;
  // Activations that need their own calibrated range (sorted, unique).
  std::vector<std::string> calibration_tensors(const GraphInfo& info) const;
  // Inputs whose per-channel means bias correction needs: name -> channel axis.
  std::map<std::string, std::int64_t> mean_tensors() const;
};

QdqPlan plan_qdq(onnx::GraphProto& graph, const GraphInfo& info, const QdqOptions& options, std::int64_t opset);

}  // namespace winml::quant

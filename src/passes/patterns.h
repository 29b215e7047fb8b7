// Subgraph patterns the fusion passes rewrite and analysis reports. One
// matcher per pattern, shared by both, so that what analysis detects is
// exactly what the passes can fuse.
//
// A matcher starts from one anchor node and checks every intermediate value
// is private to the pattern (read only inside it, not a graph output).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "passes/graph_view.h"

namespace winml::passes {

struct Match {
  std::string kind;        // "gelu_erf", "layer_norm", ...
  std::vector<int> nodes;  // node indices, in graph order
  std::string output;      // the value the fused node must produce
};

// Decomposed GELU, 0.5 * x * (1 + erf(x / sqrt(2))), anchored at the Erf node.
// Tanh form, 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), at the Tanh node.
struct GeluMatch : Match {
  std::string input;
  bool tanh = false;
};
std::optional<GeluMatch> match_gelu(const GraphView& v, int anchor);

// Decomposed LayerNormalization over trailing axes, anchored at the first ReduceMean:
// d = x - mean(x); y = d / sqrt(mean(d^2) + eps) [* scale] [+ bias].
struct LayerNormMatch : Match {
  std::string input, scale, bias;  // scale/bias "" when absent
  float epsilon = 1e-5f;
  std::int64_t axis = -1;  // first normalized axis (negative)
  std::int32_t elem_type = 0;
};
std::optional<LayerNormMatch> match_layer_norm(const GraphView& v, int anchor);

// Conv followed by BatchNormalization (inference) with constant parameters, at the BN.
std::optional<Match> match_conv_bn(const GraphView& v, int anchor);
// Conv followed by Add of a constant per-channel (or scalar) bias, at the Add.
std::optional<Match> match_conv_add_bias(const GraphView& v, int anchor);
// 2-D MatMul followed by Add of a constant Gemm can take as C, at the Add.
std::optional<Match> match_matmul_add(const GraphView& v, int anchor);
// Transpose reading a Transpose, at the second one.
std::optional<Match> match_consecutive_transposes(const GraphView& v, int anchor);
// Scaled dot-product attention, MatMul(softmax(MatMul(Q, K^T) [scaled] [+ mask]), V),
// at the Softmax (detection only).
std::optional<Match> match_attention(const GraphView& v, int anchor);
// A maximal chain of Identity/Dropout nodes, at its first node.
std::optional<Match> match_identity_chain(const GraphView& v, int anchor);

// Every pattern in a graph (no subgraphs), each anchor tried once, in graph order.
std::vector<Match> find_patterns(const GraphView& v);

// The single live reader of `value`, or -1.
int sole_consumer(const GraphView& v, const std::string& value);
// The constant scalar value of `value`, if it is one.
std::optional<double> constant_scalar(const GraphView& v, const std::string& value);

}  // namespace winml::passes

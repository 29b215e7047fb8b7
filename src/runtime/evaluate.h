// Single-node evaluation, for constant folding: runs one node on given
// tensors, as the node would run inside a model.
#pragma once

#include <cstdint>
#include <vector>

#include "model/onnx.h"
#include "runtime/kernel.h"
#include "runtime/tensor.h"

namespace winml::runtime {

// `inputs` follow node.input() (an undefined Tensor for an absent optional
// input); the result follows node.output() (undefined for unnamed outputs).
// `opsets` gives the version of the node's domain (and of any subgraph's
// nodes). UnsupportedError when no kernel exists; InputError on bad input.
std::vector<Tensor> evaluate_node(const onnx::NodeProto& node, const Opsets& opsets, const std::vector<Tensor>& inputs);

// Shorthand for a default-domain node at `opset`.
std::vector<Tensor> evaluate_node(const onnx::NodeProto& node, std::int64_t opset, const std::vector<Tensor>& inputs);

}  // namespace winml::runtime

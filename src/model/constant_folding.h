// Constant folding, shared by the optimize pass (passes/fold_constants.cpp)
// and compile (compile/fold_constants.cpp): which nodes may fold, gathering
// their constant inputs, how much larger than its inputs a result may be, and
// dropping initializers nothing reads afterwards. Each caller states its rules
// as a FoldPolicy and brings its own values and evaluation: the pass works on
// TensorProtos through a ConstantEvaluator, compile on the runtime's tensors,
// so the arithmetic stays where it is and only the decisions are shared.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/onnx.h"

namespace winml::model {

struct FoldPolicy {
  // Op types (of any domain) that never fold: random generators, training-mode
  // ops, ops a later format depends on.
  std::set<std::string> kept_ops;
  // Whether only nodes of the default domain ("" or "ai.onnx") may fold.
  bool default_domain_only = false;
  // A result may take max(inputs, growth_floor) + growth_allowance bytes.
  std::uint64_t growth_floor = 0;
  std::uint64_t growth_allowance = 0;
  // Whether initializers nothing reads any more are dropped after folding.
  bool prune_unread_initializers = false;
};

// Whether `n` may fold at all, before its inputs are looked at. Nodes with a
// subgraph and nodes without inputs never fold.
bool may_fold(const FoldPolicy& policy, const onnx::NodeProto& n);

// Whether results of `output_bytes` may replace inputs of `input_bytes`.
bool within_growth(const FoldPolicy& policy, std::uint64_t input_bytes, std::uint64_t output_bytes);

// Values of `n`'s inputs when all are constant: `values[i]` is null for an
// absent optional input. `lookup(name)` gives the constant or null.
template <class Value>
struct ConstantInputs {
  std::vector<const Value*> values;
  std::uint64_t bytes = 0;
};

template <class Value>
std::optional<ConstantInputs<Value>> constant_inputs(const onnx::NodeProto& n,
                                                     const std::function<const Value*(const std::string&)>& lookup,
                                                     const std::function<std::uint64_t(const Value&)>& bytes) {
  ConstantInputs<Value> in;
  for (const auto& name : n.input()) {
    if (name.empty()) {
      in.values.push_back(nullptr);
      continue;
    }
    const Value* v = lookup(name);
    if (!v) return std::nullopt;
    in.values.push_back(v);
    in.bytes += bytes(*v);
  }
  return in;
}

// How a caller folds values of type Value.
template <class Value>
struct FoldValues {
  // The constant named `name`, or null.
  std::function<const Value*(const std::string&)> lookup;
  // A value's size, for the growth limit.
  std::function<std::uint64_t(const Value&)> bytes;
  // `n`'s outputs, in output order, or nullopt when it is left in the graph.
  std::function<std::optional<std::vector<Value>>(const onnx::NodeProto& n, const std::vector<const Value*>& inputs)>
      evaluate;
};

// The values `n` folds to, or nullopt when it stays: `n` may fold under
// `policy`, all its inputs are constant, it evaluates, and its results stay
// within the growth limit.
template <class Value>
std::optional<std::vector<Value>> fold_node(const FoldPolicy& policy, const onnx::NodeProto& n,
                                            const FoldValues<Value>& values) {
  if (!may_fold(policy, n)) return std::nullopt;
  auto inputs = constant_inputs<Value>(n, values.lookup, values.bytes);
  if (!inputs) return std::nullopt;
  auto outputs = values.evaluate(n, inputs->values);
  if (!outputs) return std::nullopt;
  std::uint64_t output_bytes = 0;
  for (const auto& v : *outputs) output_bytes += values.bytes(v);
  if (!within_growth(policy, inputs->bytes, output_bytes)) return std::nullopt;
  return outputs;
}

// Keeps, in order, only the initializers a graph input, a graph output or a
// node reads; `node_reads(n)` names what `n` reads (subgraph captures
// included).
void drop_unread_initializers(onnx::GraphProto& g,
                              const std::function<std::vector<std::string>(const onnx::NodeProto&)>& node_reads);

}  // namespace winml::model

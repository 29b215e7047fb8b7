#include "compile/fold_constants.h"

#include <map>
#include <set>

#include "compile/partition.h"
#include "model/node_util.h"
#include "runtime/errors.h"
#include "runtime/evaluate.h"
#include "runtime/tensor.h"

namespace winml::compile {

namespace {

const std::set<std::string> kNotFoldable = {"RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial",
                                            "Dropout"};

// Results may grow by this much beyond their inputs' size.
constexpr std::uint64_t kGrowthAllowance = 64 * 1024;

}  // namespace

int fold_constants(model::Model& model, const runtime::Opsets& opsets) {
  onnx::GraphProto& g = *model.proto.mutable_graph();
  std::set<std::string> graph_inputs;
  for (const auto& v : g.input()) graph_inputs.insert(v.name());
  std::map<std::string, runtime::Tensor> constants;
  for (const auto& t : g.initializer())
    if (!graph_inputs.count(t.name())) constants[t.name()] = runtime::from_proto(t, &model);

  std::vector<onnx::TensorProto> folded_values;
  std::vector<bool> folded(static_cast<std::size_t>(g.node_size()), false);
  int count = 0;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    if ((!n.domain().empty() && n.domain() != "ai.onnx") || kNotFoldable.count(n.op_type()) || model::has_subgraph(n) ||
        n.input_size() == 0)
      continue;
    std::vector<runtime::Tensor> inputs;
    std::uint64_t in_bytes = 0;
    bool all_constant = true;
    for (const auto& name : n.input()) {
      if (name.empty()) {
        inputs.emplace_back();
        continue;
      }
      auto it = constants.find(name);
      if (it == constants.end()) {
        all_constant = false;
        break;
      }
      inputs.push_back(it->second);
      in_bytes += it->second.bytes();
    }
    if (!all_constant) continue;
    std::vector<runtime::Tensor> outputs;
    try {
      outputs = runtime::evaluate_node(n, opsets, inputs);
    } catch (const runtime::UnsupportedError&) {
      continue;  // left to run time, where the same error would name the node
    }
    std::uint64_t out_bytes = 0;
    bool storable = true;
    for (const auto& t : outputs) {
      out_bytes += t.bytes();
      storable = storable && (!t.defined() || runtime::dtype_size(t.dtype()) != 0);
    }
    if (!storable || out_bytes > in_bytes + kGrowthAllowance) continue;
    for (int k = 0; k < n.output_size(); ++k) {
      if (n.output(k).empty()) continue;
      const runtime::Tensor& t = outputs[static_cast<std::size_t>(k)];
      constants[n.output(k)] = t;
      folded_values.push_back(runtime::to_proto(t, n.output(k)));
    }
    folded[static_cast<std::size_t>(i)] = true;
    ++count;
  }
  if (count == 0) return 0;

  onnx::GraphProto kept;
  for (int i = 0; i < g.node_size(); ++i)
    if (!folded[static_cast<std::size_t>(i)]) kept.add_node()->Swap(g.mutable_node(i));
  g.mutable_node()->Swap(kept.mutable_node());
  for (auto& t : folded_values) g.add_initializer()->Swap(&t);

  // Only what nodes and outputs still read stays.
  std::set<std::string> read(graph_inputs);
  for (const auto& o : g.output()) read.insert(o.name());
  for (const auto& n : g.node())
    for (const auto& name : node_reads(n)) read.insert(name);  // subgraph captures included
  onnx::GraphProto used;
  for (auto& t : *g.mutable_initializer())
    if (read.count(t.name())) used.add_initializer()->Swap(&t);
  g.mutable_initializer()->Swap(used.mutable_initializer());
  return count;
}

}  // namespace winml::compile

#include "compile/fold_constants.h"

#include <map>
#include <set>

#include "compile/partition.h"
#include "model/constant_folding.h"
#include "runtime/errors.h"
#include "runtime/evaluate.h"
#include "runtime/tensor.h"

namespace winml::compile {

namespace {

// Every op of the default domain but random and training-mode ones folds,
// DequantizeLinear of weights included (the blob stores the dequantized
// values); results may grow by 64 KiB beyond their inputs' size; weights no
// node reads afterwards are dropped from the blob.
const model::FoldPolicy kCompilePolicy{
    .kept_ops = {"RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial", "Dropout"},
    .default_domain_only = true,
    .growth_floor = 0,
    .growth_allowance = 64 * 1024,
    .prune_unread_initializers = true,
};

// The node's outputs, or nullopt when the runtime has no kernel for it (left
// to run time, where the same error would name the node) or a result has no
// stored form (strings, 4-bit types).
std::optional<std::vector<runtime::Tensor>> evaluate(const onnx::NodeProto& n, const runtime::Opsets& opsets,
                                                     const std::vector<const runtime::Tensor*>& constant) {
  std::vector<runtime::Tensor> inputs;
  for (const auto* t : constant) inputs.push_back(t ? *t : runtime::Tensor());
  std::vector<runtime::Tensor> outputs;
  try {
    outputs = runtime::evaluate_node(n, opsets, inputs);
  } catch (const runtime::UnsupportedError&) {
    return std::nullopt;
  }
  for (const auto& t : outputs)
    if (t.defined() && runtime::dtype_size(t.dtype()) == 0) return std::nullopt;
  return outputs;
}

}  // namespace

int fold_constants(model::Model& model, const runtime::Opsets& opsets) {
  onnx::GraphProto& g = *model.proto.mutable_graph();
  std::set<std::string> graph_inputs;
  for (const auto& v : g.input()) graph_inputs.insert(v.name());
  std::map<std::string, runtime::Tensor> constants;
  for (const auto& t : g.initializer())
    if (!graph_inputs.count(t.name())) constants[t.name()] = runtime::from_proto(t, &model);

  const model::FoldValues<runtime::Tensor> values{
      .lookup = [&](const std::string& name) -> const runtime::Tensor* {
        auto it = constants.find(name);
        return it == constants.end() ? nullptr : &it->second;
      },
      .bytes = [](const runtime::Tensor& t) -> std::uint64_t { return t.bytes(); },
      .evaluate = [&](const onnx::NodeProto& n, const std::vector<const runtime::Tensor*>& inputs) {
        return evaluate(n, opsets, inputs);
      },
  };
  std::vector<onnx::TensorProto> folded_values;
  std::vector<bool> folded(static_cast<std::size_t>(g.node_size()), false);
  int count = 0;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    auto outputs = model::fold_node(kCompilePolicy, n, values);
    if (!outputs) continue;
    for (int k = 0; k < n.output_size(); ++k) {
      if (n.output(k).empty()) continue;
      const runtime::Tensor& t = (*outputs)[static_cast<std::size_t>(k)];
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
  if (kCompilePolicy.prune_unread_initializers) model::drop_unread_initializers(g, node_reads);
  return count;
}

}  // namespace winml::compile

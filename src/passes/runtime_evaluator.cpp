#include "passes/runtime_evaluator.h"

#include "model/node_util.h"
#include "runtime/evaluate.h"
#include "runtime/kernel_registry.h"
#include "runtime/tensor.h"

namespace winml::passes {

namespace {
std::string runtime_domain(const std::string& d) { return model::is_default_domain(d) ? "" : d; }
}  // namespace

bool RuntimeEvaluator::can_evaluate(const onnx::NodeProto& n, std::int64_t opset) const {
  return runtime::is_supported(runtime_domain(n.domain()), n.op_type(), opset);
}

std::optional<std::vector<onnx::TensorProto>> RuntimeEvaluator::evaluate(
    const onnx::NodeProto& n, std::int64_t opset, const std::vector<const onnx::TensorProto*>& inputs,
    const model::Model& m) const {
  try {
    std::vector<runtime::Tensor> tensors;
    for (const auto* t : inputs) tensors.push_back(t ? runtime::from_proto(*t, &m) : runtime::Tensor());
    runtime::Opsets opsets{{"", m.opset("")}};
    opsets[runtime_domain(n.domain())] = opset;
    auto outputs = runtime::evaluate_node(n, opsets, tensors);
    std::vector<onnx::TensorProto> protos;
    for (int k = 0; k < n.output_size(); ++k) {
      const auto& t = outputs[static_cast<std::size_t>(k)];
      protos.push_back(t.defined() ? runtime::to_proto(t, n.output(k)) : onnx::TensorProto());
    }
    return protos;
  } catch (const std::exception&) {
    // Anything the runtime cannot compute simply stays in the graph.
    return std::nullopt;
  }
}

const ConstantEvaluator& runtime_evaluator() {
  static const RuntimeEvaluator evaluator;
  return evaluator;
}

}  // namespace winml::passes

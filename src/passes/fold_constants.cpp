// fold_constants: values that do not depend on the model's inputs become
// initializers. Constant nodes are lifted as they are; Shape and Size of
// values with a fully known shape are computed from type information; any
// other node whose inputs are all constant is evaluated by the runtime
// (through ConstantEvaluator) under kOptimizePolicy (model/constant_folding.h,
// shared with compile). Nodes producing graph outputs are kept, as are nodes
// with subgraphs, random generators and Q/DQ pairs (the quantized format
// depends on them), and results much larger than their inputs (folding must
// not bloat the model).
#include "model/constant_folding.h"
#include "model/node_util.h"
#include "model/tensor_data.h"
#include "model/tensor_values.h"
#include "passes/constant_evaluator.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

// Q/DQ stay for quantization to read, Identity and Dropout for the passes
// that remove them; results may take up to 1 MiB or their inputs' size; the
// initializers left unread go in eliminate_unused_initializers.
const model::FoldPolicy kOptimizePolicy{
    .kept_ops = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli",
                 "QuantizeLinear", "DequantizeLinear", "Identity", "Dropout"},
    .default_domain_only = false,
    .growth_floor = 1 << 20,
    .growth_allowance = 0,
    .prune_unread_initializers = false,
};

std::int64_t domain_opset(const PassContext& ctx, const std::string& domain) {
  return model::is_default_domain(domain) ? ctx.opsets.onnx : ctx.model.opset(domain);
}

class FoldConstants : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    auto& n = v.node(i);
    for (const auto& o : n.output())
      if (v.is_graph_output(o)) return false;
    if (model::is_op(n, "Constant")) return lift_constant(v, i);
    if (model::is_op(n, "Shape") || model::is_op(n, "Size")) {
      if (fold_shape(v, i)) return true;
    }
    return evaluate(v, i, ctx);
  }

 private:
  static bool lift_constant(GraphView& v, int i) {
    const auto& n = v.node(i);
    if (n.output_size() != 1) return false;
    auto t = model::constant_node_tensor(n);
    if (!t) return false;
    t->set_name(n.output(0));
    v.remove_node(i);
    v.add_initializer(std::move(*t));
    return true;
  }

  static bool fold_shape(GraphView& v, int i) {
    const auto& n = v.node(i);
    auto shape = v.static_shape(n.input(0));
    if (!shape) return false;
    onnx::TensorProto t;
    if (n.op_type() == "Size") {
      std::int64_t count = 1;
      for (auto d : *shape) count *= d;
      t = model::make_int64s(n.output(0), {}, {count});
    } else {
      auto r = static_cast<std::int64_t>(shape->size());
      std::int64_t start = model::attr_int(n, "start", 0), end = model::attr_int(n, "end", r);
      if (start < 0) start += r;
      if (end < 0) end += r;
      start = std::clamp<std::int64_t>(start, 0, r);
      end = std::clamp<std::int64_t>(end, start, r);
      std::vector<std::int64_t> dims(shape->begin() + start, shape->begin() + end);
      t = model::make_int64s(n.output(0), {static_cast<std::int64_t>(dims.size())}, dims);
    }
    v.remove_node(i);
    v.add_initializer(std::move(t));
    return true;
  }

  static bool evaluate(GraphView& v, int i, PassContext& ctx) {
    const auto& n = v.node(i);
    if (!ctx.evaluator) return false;
    const model::FoldValues<onnx::TensorProto> values{
        .lookup = [&](const std::string& name) { return v.constant(name); },
        .bytes = [](const onnx::TensorProto& t) { return model::payload_size(t); },
        .evaluate = [&](const onnx::NodeProto& node, const std::vector<const onnx::TensorProto*>& inputs)
            -> std::optional<std::vector<onnx::TensorProto>> {
          std::int64_t opset = domain_opset(ctx, node.domain());
          if (!ctx.evaluator->can_evaluate(node, opset)) return std::nullopt;
          auto outputs = ctx.evaluator->evaluate(node, opset, inputs, ctx.model);
          if (!outputs || outputs->size() != static_cast<std::size_t>(node.output_size())) return std::nullopt;
          return outputs;
        },
    };
    auto outputs = model::fold_node(kOptimizePolicy, n, values);
    if (!outputs) return false;
    std::vector<std::string> names(n.output().begin(), n.output().end());
    v.remove_node(i);
    for (std::size_t k = 0; k < outputs->size(); ++k) {
      if (names[k].empty()) continue;
      (*outputs)[k].set_name(names[k]);
      v.add_initializer(std::move((*outputs)[k]));
    }
    return true;
  }
};

}  // namespace

WINML_PASS(fold_constants, 200, FoldConstants);

}  // namespace winml::passes

// fold_constants: values that do not depend on the model's inputs become
// initializers. Constant nodes are lifted as they are; Shape and Size of
// values with a fully known shape are computed from type information; any
// other node whose inputs are all constant is evaluated by the runtime
// (through ConstantEvaluator). Nodes producing graph outputs are kept, as are
// nodes with subgraphs, random generators and Q/DQ pairs (the quantized
// format depends on them), and results much larger than their inputs (folding
// must not bloat the model).
#include <set>

#include "model/node_util.h"
#include "model/tensor_data.h"
#include "model/tensor_values.h"
#include "passes/constant_evaluator.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

constexpr std::uint64_t kMaxGrowthBytes = 1 << 20;

bool never_fold(const onnx::NodeProto& n) {
  static const std::set<std::string> kOps = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                                             "Multinomial",  "Bernoulli",     "QuantizeLinear",   "DequantizeLinear",
                                             "Identity",     "Dropout"};
  return model::has_subgraph(n) || kOps.count(n.op_type()) > 0;
}

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
    if (!ctx.evaluator || never_fold(n) || n.input_size() == 0) return false;
    std::vector<const onnx::TensorProto*> inputs;
    std::uint64_t input_bytes = 0;
    for (const auto& in : n.input()) {
      if (in.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      const auto* t = v.constant(in);
      if (!t) return false;
      inputs.push_back(t);
      input_bytes += model::payload_size(*t);
    }
    std::int64_t opset = domain_opset(ctx, n.domain());
    if (!ctx.evaluator->can_evaluate(n, opset)) return false;
    auto outputs = ctx.evaluator->evaluate(n, opset, inputs, ctx.model);
    if (!outputs || outputs->size() != static_cast<std::size_t>(n.output_size())) return false;
    std::uint64_t output_bytes = 0;
    for (const auto& t : *outputs) output_bytes += model::payload_size(t);
    if (output_bytes > std::max(input_bytes, kMaxGrowthBytes)) return false;
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

// eliminate_nop_arithmetic: x + 0, 0 + x, x - 0, x * 1, 1 * x and x / 1 with
// a constant of zeros or ones that cannot widen x by broadcasting (rank not
// above x's, every dimension 1 or equal to x's), as ONNX Runtime's basic
// level does. Exporters leave them behind (a scale of 1, an offset of 0).
#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

// True when every element of `t` is `identity` (0 or 1), numerically.
bool all_equal(const model::Model& m, const onnx::TensorProto& t, double identity) {
  if (auto f = model::read_floats(m, t)) {
    for (float x : *f)
      if (x != identity) return false;
    return true;
  }
  if (auto ints = model::read_ints(m, t)) {
    if (t.data_type() == onnx::TensorProto::BOOL) return false;
    for (auto x : *ints)
      if (x != static_cast<std::int64_t>(identity)) return false;
    return true;
  }
  return false;
}

class EliminateNopArithmetic : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    const auto& n = v.node(i);
    if (!model::is_default_domain(n.domain()) || n.input_size() != 2 || n.output_size() != 1) return false;
    const std::string& op = n.op_type();
    const bool additive = op == "Add" || op == "Sub", multiplicative = op == "Mul" || op == "Div";
    if (!additive && !multiplicative) return false;
    const double identity = additive ? 0.0 : 1.0;
    const bool commutes = op == "Add" || op == "Mul";
    for (int k = commutes ? 0 : 1; k < 2; ++k) {
      const auto* c = v.constant(n.input(k));
      const std::string& x = n.input(1 - k);
      if (!c || v.constant(x) || !all_equal(ctx.model, *c, identity)) continue;
      const std::span<const std::int64_t> dims(c->dims().data(), static_cast<std::size_t>(c->dims_size()));
      if (v.elem_type(x) != c->data_type() || !v.broadcasts_into(x, dims)) continue;
      return v.bypass(i, x, n.output(0));
    }
    return false;
  }
};

}  // namespace

WINML_PASS(eliminate_nop_arithmetic, 380, EliminateNopArithmetic);

}  // namespace winml::passes

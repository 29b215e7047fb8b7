// eliminate_nop_reshape: a Reshape whose target shape is the shape the value
// already has. Works with symbolic dimensions: every target entry must copy
// (0) or equal a known input dimension, except at most one -1, which then
// can only stand for the remaining dimension.
#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class EliminateNopReshape : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    const auto& n = v.node(i);
    if (!model::is_op(n, "Reshape") || n.input_size() != 2) return false;
    auto in = v.partial_shape(n.input(0));
    const auto* shape_t = v.constant(n.input(1));
    if (!in || !shape_t) return false;
    auto target = model::read_ints(ctx.model, *shape_t);
    if (!target || target->size() != in->size()) return false;
    bool allow_zero = model::attr_int(n, "allowzero", 0) != 0;
    int wildcards = 0;
    for (std::size_t k = 0; k < target->size(); ++k) {
      std::int64_t t = (*target)[k], d = (*in)[k];
      if (t == 0 && !allow_zero) continue;  // copies the input dimension
      if (t == -1) {
        ++wildcards;
        continue;
      }
      if (d < 0 || t != d) return false;
    }
    if (wildcards > 1) return false;
    return v.bypass(i, n.input(0), n.output(0));
  }
};
}  // namespace

WINML_PASS(eliminate_nop_reshape, 330, EliminateNopReshape);

}  // namespace winml::passes

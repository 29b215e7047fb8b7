// eliminate_nop_expand: an Expand whose target broadcasts to the shape the
// value already has (target rank not larger, each target dimension 1 or equal
// to the known input dimension).
#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class EliminateNopExpand : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    const auto& n = v.node(i);
    if (!model::is_op(n, "Expand") || n.input_size() != 2) return false;
    auto in = v.partial_shape(n.input(0));
    const auto* shape_t = v.constant(n.input(1));
    if (!in || !shape_t) return false;
    auto target = model::read_ints(ctx.model, *shape_t);
    if (!target || target->size() > in->size()) return false;
    std::size_t offset = in->size() - target->size();
    for (std::size_t k = 0; k < target->size(); ++k) {
      std::int64_t t = (*target)[k], d = (*in)[offset + k];
      if (t != 1 && t != d) return false;
      if (t != 1 && d < 0) return false;
    }
    return v.bypass(i, n.input(0), n.output(0));
  }
};
}  // namespace

WINML_PASS(eliminate_nop_expand, 360, EliminateNopExpand);

}  // namespace winml::passes

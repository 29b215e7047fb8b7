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
    const auto* shape_t = v.constant(n.input(1));
    if (!shape_t) return false;
    auto target = model::read_ints(ctx.model, *shape_t);
    // (An empty target broadcasts into anything; the input's shape must still be known.)
    if (!target || (target->empty() && !v.rank(n.input(0))) || !v.broadcasts_into(n.input(0), *target)) return false;
    return v.bypass(i, n.input(0), n.output(0));
  }
};
}  // namespace

WINML_PASS(eliminate_nop_expand, 360, EliminateNopExpand);

}  // namespace winml::passes

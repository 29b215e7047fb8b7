// eliminate_nop_pad: a Pad whose pads are all zero (any mode).
#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class EliminateNopPad : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    const auto& n = v.node(i);
    if (!model::is_op(n, "Pad") || n.input_size() < 1) return false;
    std::optional<std::vector<std::int64_t>> pads;
    if (n.input_size() >= 2 && !n.input(1).empty()) {  // opset >= 11: pads is an input
      const auto* t = v.constant(n.input(1));
      if (!t) return false;
      pads = model::read_ints(ctx.model, *t);
    } else {
      pads = model::attr_ints(n, "pads");
    }
    if (!pads) return false;
    for (auto p : *pads)
      if (p != 0) return false;
    return v.bypass(i, n.input(0), n.output(0));
  }
};
}  // namespace

WINML_PASS(eliminate_nop_pad, 350, EliminateNopPad);

}  // namespace winml::passes

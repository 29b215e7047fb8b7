// eliminate_nop_cast: a Cast to the element type its input already has.
#include "model/node_util.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class EliminateNopCast : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext&) override {
    const auto& n = v.node(i);
    if (!model::is_op(n, "Cast") || n.input_size() != 1) return false;
    std::int32_t from = v.elem_type(n.input(0));
    if (from == 0 || model::attr_int(n, "to", -1) != from) return false;
    return v.bypass(i, n.input(0), n.output(0));
  }
};
}  // namespace

WINML_PASS(eliminate_nop_cast, 320, EliminateNopCast);

}  // namespace winml::passes

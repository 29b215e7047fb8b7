// eliminate_nop_transpose: a Transpose whose permutation is the identity.
#include "model/node_util.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class EliminateNopTranspose : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext&) override {
    const auto& n = v.node(i);
    if (!model::is_op(n, "Transpose") || n.input_size() != 1) return false;
    auto perm = model::attr_ints(n, "perm");
    if (!perm) {
      // The default reverses the axes: the identity only for rank <= 1.
      auto r = v.rank(n.input(0));
      if (!r || *r > 1) return false;
    } else {
      for (std::size_t k = 0; k < perm->size(); ++k)
        if ((*perm)[k] != static_cast<std::int64_t>(k)) return false;
    }
    return v.bypass(i, n.input(0), n.output(0));
  }
};
}  // namespace

WINML_PASS(eliminate_nop_transpose, 340, EliminateNopTranspose);

}  // namespace winml::passes

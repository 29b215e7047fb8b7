// eliminate_identity: Identity nodes are removed and their readers read the
// input directly. An Identity producing a graph output is kept unless its
// input can be renamed to the output's name.
#include "model/node_util.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class EliminateIdentity : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext&) override {
    const auto& n = v.node(i);
    if (!model::is_op(n, "Identity") || n.input_size() != 1 || n.output_size() != 1) return false;
    return v.bypass(i, n.input(0), n.output(0));
  }
};
}  // namespace

WINML_PASS(eliminate_identity, 300, EliminateIdentity);

}  // namespace winml::passes

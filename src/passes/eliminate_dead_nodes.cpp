// eliminate_dead_nodes: nodes none of whose outputs is read (by a node, a
// subgraph or as a graph output). Visited last to first, so whole dead
// chains go in one round.
#include "passes/registry.h"

namespace winml::passes {

namespace {
class EliminateDeadNodes : public Pass {
 public:
  int run_graph(GraphView& v, PassContext&) override {
    int n = 0;
    for (int i = v.size() - 1; i >= 0; --i) {
      if (v.removed(i)) continue;
      bool used = false;
      for (const auto& o : v.node(i).output()) used = used || (!o.empty() && v.use_count(o) > 0);
      if (!used) {
        v.remove_node(i);
        ++n;
      }
    }
    return n;
  }
};
}  // namespace

WINML_PASS(eliminate_dead_nodes, 510, EliminateDeadNodes);

}  // namespace winml::passes

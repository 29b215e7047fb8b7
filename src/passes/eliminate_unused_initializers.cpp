// eliminate_unused_initializers: initializers no node or subgraph reads and
// that are not graph outputs. Initializers that are also graph inputs are part
// of the model's interface and stay.
#include "passes/registry.h"

namespace winml::passes {

namespace {
class EliminateUnusedInitializers : public Pass {
 public:
  int run_graph(GraphView& v, PassContext&) override {
    std::vector<std::string> unused;
    for (const auto& t : v.graph().initializer())
      if (v.use_count(t.name()) == 0 && !v.is_graph_input(t.name())) unused.push_back(t.name());
    for (const auto& name : unused) v.remove_initializer(name);
    return static_cast<int>(unused.size());
  }
};
}  // namespace

WINML_PASS(eliminate_unused_initializers, 520, EliminateUnusedInitializers);

}  // namespace winml::passes

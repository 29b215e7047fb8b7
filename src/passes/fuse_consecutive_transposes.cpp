// fuse_consecutive_transposes: Transpose(Transpose(x, p1), p2) reads x
// directly with the composed permutation p[k] = p1[p2[k]]. The first
// Transpose goes away once nothing else reads it; an identity result is left
// to eliminate_nop_transpose.
#include <numeric>

#include "model/node_util.h"
#include "passes/patterns.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

std::optional<std::vector<std::int64_t>> perm_of(const GraphView& v, const onnx::NodeProto& t) {
  if (auto p = model::attr_ints(t, "perm")) return p;
  auto r = v.rank(t.input(0));
  if (!r) return std::nullopt;
  std::vector<std::int64_t> p(static_cast<std::size_t>(*r));
  std::iota(p.rbegin(), p.rend(), 0);  // default: reverse the axes
  return p;
}

class FuseConsecutiveTransposes : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext&) override {
    auto m = match_consecutive_transposes(v, i);
    if (!m) return false;
    int t1 = m->nodes[0] == i ? m->nodes[1] : m->nodes[0];
    auto p1 = perm_of(v, v.node(t1));
    auto p2 = perm_of(v, v.node(i));
    if (!p1 || !p2 || p1->size() != p2->size()) return false;
    std::vector<std::int64_t> p(p2->size());
    for (std::size_t k = 0; k < p.size(); ++k) {
      auto j = (*p2)[k];
      if (j < 0 || j >= static_cast<std::int64_t>(p1->size())) return false;
      p[k] = (*p1)[static_cast<std::size_t>(j)];
    }
    std::string x = v.node(t1).input(0);
    v.set_input(i, 0, x);
    model::set_attr_ints(v.node(i), "perm", p);
    return true;
  }
};
}  // namespace

WINML_PASS(fuse_consecutive_transposes, 400, FuseConsecutiveTransposes);

}  // namespace winml::passes

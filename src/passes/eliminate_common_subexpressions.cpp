// eliminate_common_subexpressions: two nodes with the same op, attributes and
// inputs compute the same values; the later one's readers read the earlier
// one's outputs. Nodes with subgraphs or randomness are never merged, nor
// nodes whose outputs are graph outputs.
#include <map>
#include <set>

#include "model/model_io.h"
#include "model/node_util.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

bool mergeable(const onnx::NodeProto& n) {
  static const std::set<std::string> kRandom = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli", "Dropout"};
  if (kRandom.count(n.op_type()) || model::has_subgraph(n)) return false;
  return n.output_size() > 0;
}

std::string key_of(const onnx::NodeProto& n) {
  std::string key = n.domain() + '\0' + n.op_type() + '\0' + std::to_string(n.output_size()) + '\0';
  for (const auto& i : n.input()) key += i + '\0';
  key += '\1';
  // Attributes in name order, each serialized deterministically.
  std::map<std::string, std::string> attrs;
  for (const auto& a : n.attribute()) attrs[a.name()] = model::serialize_deterministic(a);
  for (const auto& [name, bytes] : attrs) key += name + '\0' + bytes + '\0';
  return key;
}

class EliminateCommonSubexpressions : public Pass {
 public:
  int run_graph(GraphView& v, PassContext&) override {
    std::map<std::string, int> first;
    int merged = 0;
    const int count = v.size();
    for (int i = 0; i < count; ++i) {
      if (v.removed(i) || !mergeable(v.node(i))) continue;
      bool is_output = false;
      for (const auto& o : v.node(i).output()) is_output = is_output || v.is_graph_output(o);
      // Keys use current input names: a merge earlier in this loop rewires
      // later readers first, so chains of duplicates collapse in one round.
      auto [it, inserted] = first.emplace(key_of(v.node(i)), i);
      if (inserted || is_output) continue;
      const auto& kept = v.node(it->second);
      bool covered = true;  // every output read here must exist on the kept node
      for (int k = 0; k < v.node(i).output_size(); ++k)
        if (!v.node(i).output(k).empty() && kept.output(k).empty()) covered = false;
      if (!covered) continue;
      for (int k = 0; k < v.node(i).output_size(); ++k) {
        const std::string& o = v.node(i).output(k);
        if (!o.empty()) v.replace_uses(o, kept.output(k));
      }
      v.remove_node(i);
      ++merged;
    }
    return merged;
  }
};
}  // namespace

WINML_PASS(eliminate_common_subexpressions, 500, EliminateCommonSubexpressions);

}  // namespace winml::passes

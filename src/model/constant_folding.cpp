#include "model/constant_folding.h"

#include <algorithm>

#include "model/node_util.h"

namespace winml::model {

bool may_fold(const FoldPolicy& policy, const onnx::NodeProto& n) {
  if (policy.default_domain_only && !is_default_domain(n.domain())) return false;
  return policy.kept_ops.count(n.op_type()) == 0 && !has_subgraph(n) && n.input_size() > 0;
}

bool within_growth(const FoldPolicy& policy, std::uint64_t input_bytes, std::uint64_t output_bytes) {
  return output_bytes <= std::max(input_bytes, policy.growth_floor) + policy.growth_allowance;
}

void drop_unread_initializers(onnx::GraphProto& g,
                              const std::function<std::vector<std::string>(const onnx::NodeProto&)>& node_reads) {
  std::set<std::string> read;
  for (const auto& v : g.input()) read.insert(v.name());
  for (const auto& o : g.output()) read.insert(o.name());
  for (const auto& n : g.node())
    for (const auto& name : node_reads(n)) read.insert(name);
  onnx::GraphProto used;
  for (auto& t : *g.mutable_initializer())
    if (read.count(t.name())) used.add_initializer()->Swap(&t);
  g.mutable_initializer()->Swap(used.mutable_initializer());
}

}  // namespace winml::model

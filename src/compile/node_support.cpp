#include "compile/node_support.h"

#include "runtime/errors.h"
#include "runtime/kernel_registry.h"
#include "runtime/plan.h"
#include "base/path_text.h"

namespace winml::compile {

std::int64_t opset_for_domain(const runtime::Opsets& opsets, const std::string& domain) {
  auto it = opsets.find(runtime::canonical_domain(domain));
  if (it != opsets.end()) return it->second;
  return domain.empty() || domain == "ai.onnx" ? 0 : 1;
}

bool runtime_runs_node(const onnx::NodeProto& n, const runtime::Opsets& opsets,
                       const std::vector<const runtime::Tensor*>& constants, const model::Model* model,
                       const std::map<std::string, std::int64_t>& dims) {
  std::int64_t opset = opset_for_domain(opsets, n.domain());
  auto entry = runtime::KernelRegistry::global().find(n.domain(), n.op_type(), opset);
  if (!entry) return false;
  const std::string source = model ? to_utf8(model->path) : std::string();
  runtime::NodeContext::SubgraphBuilder subgraphs = [&](const onnx::GraphProto& g) {
    return runtime::build_graph_plan(g, opsets, model, source, {dims, false});
  };
  try {
    runtime::NodeContext ctx(n, opset, opsets, constants, subgraphs, model);
    entry->factory(ctx);
    return true;
  } catch (const runtime::UnsupportedError&) {
    return false;
  }
}

}  // namespace winml::compile

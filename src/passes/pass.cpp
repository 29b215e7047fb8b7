#include "passes/pass.h"

#include <functional>

#include "model/node_util.h"

namespace winml::passes {

void PassContext::note(std::string message) {
  for (const auto& n : notes)
    if (n == message) return;
  notes.push_back(std::move(message));
}

void PassContext::require_opset(const std::string& domain, std::int64_t version) {
  for (const auto& o : model.proto.opset_import())
    if (o.domain() == domain) return;
  model::ensure_opset(model.proto, domain, version);
  if (domain == "com.microsoft") opsets.microsoft = version;
}

namespace {
int run_on(Pass& pass, onnx::GraphProto& g, const GraphView* parent, PassContext& ctx) {
  GraphView view(g, ctx.model, parent);
  int n = pass.run_graph(view, ctx);
  view.commit();
  for (int i = 0; i < view.size(); ++i)
    for (auto& a : *view.node(i).mutable_attribute()) {
      if (a.has_g()) n += run_on(pass, *a.mutable_g(), &view, ctx);
      for (auto& sg : *a.mutable_graphs()) n += run_on(pass, sg, &view, ctx);
    }
  return n;
}
}  // namespace

int Pass::run_model(PassContext& ctx) { return run_on(*this, *ctx.model.proto.mutable_graph(), nullptr, ctx); }

int NodePass::run_graph(GraphView& view, PassContext& ctx) {
  int n = 0;
  const int count = view.size();  // nodes added by rewrites wait for the next round
  for (int i = 0; i < count; ++i)
    if (!view.removed(i) && rewrite(view, i, ctx)) ++n;
  return n;
}

}  // namespace winml::passes

// fuse_gelu: decomposed GELU (Erf or Tanh form) becomes one node:
// - ONNX Gelu (approximate "none" / "tanh") when the model's opset is >= 20;
// - otherwise com.microsoft Gelu (Erf form) or FastGelu (Tanh form), only if
//   the target EP's operator table says the EP runs it;
// - otherwise the decomposition stays (noted in the report).
#include "ep/ep_table.h"
#include "model/node_util.h"
#include "passes/patterns.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class FuseGelu : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    auto m = match_gelu(v, i);
    if (!m) return false;
    onnx::NodeProto gelu;
    std::string base = v.node(i).name().empty() ? "Gelu" : v.node(i).name() + "_gelu";
    if (ctx.opsets.onnx >= 20) {
      gelu = model::make_node("Gelu", {m->input}, {m->output}, v.unique_name(base));
      if (m->tanh) model::set_attr_string(gelu, "approximate", "tanh");
    } else {
      const char* op = m->tanh ? "FastGelu" : "Gelu";
      if (!ctx.ep_table || !ctx.ep_table->runs("com.microsoft", op)) {
        ctx.note(std::string("fuse_gelu: ONNX Gelu needs opset >= 20 and the target EP ") +
                 (ctx.ep_table ? "'" + ctx.ep_table->name + "' does not list" : "(none given) cannot confirm") +
                 " com.microsoft " + op + "; decomposed GELU kept");
        return false;
      }
      gelu = model::make_node(op, {m->input}, {m->output}, v.unique_name(base));
      gelu.set_domain("com.microsoft");
      ctx.require_opset("com.microsoft", 1);
    }
    int last = m->nodes.back();
    for (int n : m->nodes) v.remove_node(n);
    v.add_node(std::move(gelu), last);
    return true;
  }
};
}  // namespace

WINML_PASS(fuse_gelu, 460, FuseGelu);

}  // namespace winml::passes

// eliminate_dropout: in inference Dropout passes its input through. Removed
// unless its mask output is read or training_mode (opset >= 12) may be true.
#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class EliminateDropout : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    const auto& n = v.node(i);
    if (!model::is_op(n, "Dropout") || n.input_size() < 1 || n.output_size() < 1) return false;
    if (n.output_size() > 1 && !n.output(1).empty() && v.use_count(n.output(1)) > 0) return false;
    const std::string& training = model::input_or_empty(n, 2);
    if (!training.empty()) {
      const auto* t = v.constant(training);
      auto value = t ? model::read_scalar(ctx.model, *t) : std::nullopt;
      if (!value || *value != 0) return false;
    }
    // Before opset 7, Dropout runs in training mode unless is_test is set.
    if (ctx.opsets.onnx < 7 && model::attr_int(n, "is_test", 0) == 0) return false;
    return v.bypass(i, n.input(0), n.output(0));
  }
};
}  // namespace

WINML_PASS(eliminate_dropout, 310, EliminateDropout);

}  // namespace winml::passes

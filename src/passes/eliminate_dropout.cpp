// eliminate_dropout: in inference Dropout passes its input through, and so
// does a ratio of 0 in training mode (exporters leave attention dropouts of
// p = 0 with training_mode = true). Removed unless its mask output is read or
// it may drop something: training_mode (opset >= 12) may be true and the
// ratio is not a constant 0.
#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
// A constant scalar 0 (false); an absent optional input counts as
// `absent_is_zero` (training_mode's default is false, ratio's is 0.5).
bool constant_is_zero(GraphView& v, PassContext& ctx, const std::string& input, bool absent_is_zero) {
  if (input.empty()) return absent_is_zero;
  const auto* t = v.constant(input);
  auto value = t ? model::read_scalar(ctx.model, *t) : std::nullopt;
  return value && *value == 0;
}

class EliminateDropout : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    const auto& n = v.node(i);
    if (!model::is_op(n, "Dropout") || n.input_size() < 1 || n.output_size() < 1) return false;
    if (n.output_size() > 1 && !n.output(1).empty() && v.use_count(n.output(1)) > 0) return false;
    const bool inference = constant_is_zero(v, ctx, model::input_or_empty(n, 2), true);
    if (!inference && !constant_is_zero(v, ctx, model::input_or_empty(n, 1), false))
      return false;
    // Before opset 7, Dropout runs in training mode unless is_test is set.
    if (ctx.opsets.onnx < 7 && model::attr_int(n, "is_test", 0) == 0) return false;
    return v.bypass(i, n.input(0), n.output(0));
  }
};
}  // namespace

WINML_PASS(eliminate_dropout, 310, EliminateDropout);

}  // namespace winml::passes

// fuse_add_bias_into_conv: Conv followed by Add of a constant that varies only
// along the channel axis (or is a scalar) folds the constant into the Conv's
// bias.
#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/patterns.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class FuseAddBiasIntoConv : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    auto m = match_conv_add_bias(v, i);
    if (!m) return false;
    int c = m->nodes[0] == i ? m->nodes[1] : m->nodes[0];
    const auto& add = v.node(i);
    auto& conv = v.node(c);
    const std::string& bias_name = add.input(0) == conv.output(0) ? add.input(1) : add.input(0);
    const auto* w = v.constant(conv.input(1));
    const auto channels = static_cast<std::size_t>(w->dims(0));
    auto add_values = model::read_floats(ctx.model, *v.constant(bias_name));
    if (!add_values || (add_values->size() != channels && add_values->size() != 1)) return false;
    std::vector<float> b(channels, 0.0f);
    if (!model::input_or_empty(conv, 2).empty()) {
      auto old_b = model::read_floats(ctx.model, *v.constant(conv.input(2)));
      if (!old_b || old_b->size() != channels) return false;
      b = *old_b;
    }
    for (std::size_t k = 0; k < channels; ++k) b[k] += (*add_values)[add_values->size() == 1 ? 0 : k];
    std::string b_name =
        v.add_initializer(model::make_floats(v.unique_name(conv.name().empty() ? "conv_bias" : conv.name() + "_bias"),
                                             {static_cast<std::int64_t>(channels)}, b));
    const std::string out = add.output(0);
    v.set_input(c, 2, b_name);
    v.remove_node(i);
    v.set_output(c, 0, out);
    return true;
  }
};
}  // namespace

WINML_PASS(fuse_add_bias_into_conv, 430, FuseAddBiasIntoConv);

}  // namespace winml::passes

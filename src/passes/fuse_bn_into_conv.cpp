// fuse_bn_into_conv: Conv followed by an inference BatchNormalization becomes
// one Conv with scaled weights and a shifted bias:
//   s = scale / sqrt(var + eps);  W' = W * s (per output channel);  B' = (B - mean) * s + bias.
// Computed in double, stored as float32 in new initializers (the originals
// may be shared and are removed later if unused).
#include <cmath>

#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/patterns.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class FuseBnIntoConv : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    auto m = match_conv_bn(v, i);
    if (!m) return false;
    const auto& bn = v.node(i);
    int c = m->nodes[0] == i ? m->nodes[1] : m->nodes[0];
    auto& conv = v.node(c);
    const auto& model = ctx.model;
    const auto* w_t = v.constant(conv.input(1));
    auto w = model::read_floats(model, *w_t);
    auto scale = model::read_floats(model, *v.constant(bn.input(1)));
    auto shift = model::read_floats(model, *v.constant(bn.input(2)));
    auto mean = model::read_floats(model, *v.constant(bn.input(3)));
    auto var = model::read_floats(model, *v.constant(bn.input(4)));
    if (!w || !scale || !shift || !mean || !var) return false;
    const std::size_t channels = scale->size();
    std::vector<float> b(channels, 0.0f);
    if (!model::input_or_empty(conv, 2).empty()) {
      auto old_b = model::read_floats(model, *v.constant(conv.input(2)));
      if (!old_b || old_b->size() != channels) return false;
      b = *old_b;
    }
    const double eps = model::attr_float(bn, "epsilon", 1e-5f);
    const std::size_t per_channel = w->size() / channels;
    std::vector<float> w2(w->size()), b2(channels);
    for (std::size_t k = 0; k < channels; ++k) {
      double s = double((*scale)[k]) / std::sqrt(double((*var)[k]) + eps);
      for (std::size_t j = 0; j < per_channel; ++j)
        w2[k * per_channel + j] = static_cast<float>(double((*w)[k * per_channel + j]) * s);
      b2[k] = static_cast<float>((double(b[k]) - double((*mean)[k])) * s + double((*shift)[k]));
    }
    std::vector<std::int64_t> w_dims(w_t->dims().begin(), w_t->dims().end());
    std::string w_name = v.add_initializer(model::make_floats(v.unique_name(conv.input(1) + "_bn"), w_dims, w2));
    std::string b_name = v.add_initializer(
        model::make_floats(v.unique_name(conv.name().empty() ? "conv_bias_bn" : conv.name() + "_bias_bn"),
                           {static_cast<std::int64_t>(channels)}, b2));
    const std::string out = bn.output(0);
    v.set_input(c, 1, w_name);
    v.set_input(c, 2, b_name);
    v.remove_node(i);
    v.set_output(c, 0, out);
    return true;
  }
};
}  // namespace

WINML_PASS(fuse_bn_into_conv, 420, FuseBnIntoConv);

}  // namespace winml::passes

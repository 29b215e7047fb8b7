// fuse_pad_into_conv: a Pad of zeros on the spatial axes only, read by one
// Conv or AveragePool alone, becomes that node's own padding (exporters
// write `avg_pool2d(padding=1)` and some convolutions as Pad + node). An
// AveragePool then counts the padded zeros (count_include_pad = 1), as the
// averages over the Pad's output did; one that already has padding of its
// own and does not count it is left alone. MaxPool is never fused: its
// padding is -inf, not 0.
#include <algorithm>

#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

// The Pad's pads (all axes: begins then ends) when it pads with zeros.
std::optional<std::vector<std::int64_t>> zero_pads(GraphView& v, const onnx::NodeProto& pad, PassContext& ctx) {
  if (model::attr_string(pad, "mode", "constant") != "constant") return std::nullopt;
  if (pad.input_size() >= 4 && !pad.input(3).empty()) return std::nullopt;  // axes (opset 18): not handled
  if (pad.input_size() >= 2 && !pad.input(1).empty()) {  // opset >= 11: pads and value are inputs
    const auto* p = v.constant(pad.input(1));
    if (!p) return std::nullopt;
    if (pad.input_size() >= 3 && !pad.input(2).empty()) {
      const auto* value = v.constant(pad.input(2));
      auto x = value ? model::read_scalar(ctx.model, *value) : std::nullopt;
      if (!x || *x != 0) return std::nullopt;
    }
    return model::read_ints(ctx.model, *p);
  }
  if (model::attr_float(pad, "value", 0.0f) != 0.0f) return std::nullopt;
  return model::attr_ints(pad, "pads");
}

class FusePadIntoConv : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    const auto& n = v.node(i);
    const bool conv = model::is_op(n, "Conv"), pool = model::is_op(n, "AveragePool");
    if ((!conv && !pool) || n.input_size() < 1) return false;
    if (model::attr_string(n, "auto_pad", "NOTSET") != "NOTSET") return false;
    const int p = v.producer(n.input(0));
    if (p < 0 || !model::is_op(v.node(p), "Pad") || v.use_count(n.input(0)) != 1) return false;
    const auto& pad = v.node(p);
    auto pads = zero_pads(v, pad, ctx);
    const auto rank = v.rank(pad.input(0));
    if (!pads || !rank || static_cast<int>(pads->size()) != 2 * *rank || *rank < 3) return false;
    // Batch and channel axes stay unpadded, and nothing is cropped.
    const int r = *rank, spatial = r - 2;
    for (int k = 0; k < 2 * r; ++k) {
      const std::int64_t x = (*pads)[static_cast<std::size_t>(k)];
      if (x < 0 || ((k % r) < 2 && x != 0)) return false;
    }
    auto own = model::attr_ints(n, "pads").value_or(std::vector<std::int64_t>(2 * spatial, 0));
    if (static_cast<int>(own.size()) != 2 * spatial) return false;
    const bool own_padding = std::any_of(own.begin(), own.end(), [](std::int64_t x) { return x != 0; });
    if (pool && own_padding && model::attr_int(n, "count_include_pad", 0) == 0) return false;
    if (pool && model::attr_int(n, "ceil_mode", 0) != 0) return false;  // windows past the end: keep it plain
    for (int s = 0; s < spatial; ++s) {
      own[static_cast<std::size_t>(s)] += (*pads)[static_cast<std::size_t>(2 + s)];
      own[static_cast<std::size_t>(spatial + s)] += (*pads)[static_cast<std::size_t>(r + 2 + s)];
    }
    auto& target = v.node(i);
    model::set_attr_ints(target, "pads", own);
    if (pool) model::set_attr_int(target, "count_include_pad", 1);
    v.set_input(i, 0, pad.input(0));
    v.remove_node(p);
    return true;
  }
};

}  // namespace

WINML_PASS(fuse_pad_into_conv, 425, FusePadIntoConv);

}  // namespace winml::passes

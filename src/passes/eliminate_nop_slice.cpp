// eliminate_nop_slice: a Slice that selects every element: on each sliced axis
// it starts at 0, steps by 1 and ends at or past the end.
#include <limits>

#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

std::optional<std::vector<std::int64_t>> const_ints(const GraphView& v, const onnx::NodeProto& n, int k,
                                                    const model::Model& m) {
  const std::string& name = model::input_or_empty(n, k);
  if (name.empty()) return std::vector<std::int64_t>{};
  const auto* t = v.constant(name);
  if (!t) return std::nullopt;
  return model::read_ints(m, *t);
}

class EliminateNopSlice : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    const auto& n = v.node(i);
    if (!model::is_op(n, "Slice") || n.input_size() < 1) return false;
    std::optional<std::vector<std::int64_t>> starts, ends, axes, steps;
    if (n.input_size() >= 3) {  // opset >= 10: inputs
      starts = const_ints(v, n, 1, ctx.model);
      ends = const_ints(v, n, 2, ctx.model);
      axes = const_ints(v, n, 3, ctx.model);
      steps = const_ints(v, n, 4, ctx.model);
    } else {
      starts = model::attr_ints(n, "starts");
      ends = model::attr_ints(n, "ends");
      axes = model::attr_ints(n, "axes");
      steps = std::vector<std::int64_t>{};
      if (!axes) axes = std::vector<std::int64_t>{};
    }
    if (!starts || !ends || !axes || !steps || starts->size() != ends->size()) return false;
    auto shape = v.partial_shape(n.input(0));
    for (std::size_t k = 0; k < starts->size(); ++k) {
      std::int64_t axis = axes->empty() ? static_cast<std::int64_t>(k) : (*axes)[k];
      std::int64_t step = steps->empty() ? 1 : (*steps)[k];
      if (step != 1) return false;
      std::int64_t dim = -1;
      if (shape) {
        if (axis < 0) axis += static_cast<std::int64_t>(shape->size());
        if (axis < 0 || axis >= static_cast<std::int64_t>(shape->size())) return false;
        dim = (*shape)[static_cast<std::size_t>(axis)];
      }
      std::int64_t start = (*starts)[k], end = (*ends)[k];
      if (start < 0) {
        if (dim < 0 || start + dim > 0) return false;  // must clamp to 0
      } else if (start != 0) {
        return false;
      }
      // INT_MAX-like ends mean "to the end" whatever the dimension.
      bool to_end = end >= std::numeric_limits<std::int32_t>::max() || (dim >= 0 && end >= dim);
      if (!to_end) return false;
    }
    return v.bypass(i, n.input(0), n.output(0));
  }
};
}  // namespace

WINML_PASS(eliminate_nop_slice, 370, EliminateNopSlice);

}  // namespace winml::passes

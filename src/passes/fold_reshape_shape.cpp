// fold_reshape_shape: a Reshape whose target shape is computed from the shape
// of its own input -- Concat of pieces, each a constant or dimensions of
// Shape(data) taken by Slice or Gather (through Casts and Unsqueeze), as
// exporters write `x.reshape(x.shape[0], -1)` -- gets a constant target: a
// dimension known after shape inference is written as its size, and one
// taken from the same position of the input becomes 0 (Reshape's "copy");
// a single other one becomes -1 (the size the rest leave, as the original
// shape was valid).
// The shape computation then goes away as dead code, and the Reshape's
// output rank becomes known (a 2-D MatMul after it can fuse into Gemm).
#include <algorithm>
#include <optional>

#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

bool int_cast(const onnx::NodeProto& n) {
  const auto to = model::attr_int(n, "to", 0);
  return model::is_op(n, "Cast") && (to == onnx::TensorProto::INT64 || to == onnx::TensorProto::INT32);
}

// Skips Casts to int32/int64 (which keep shape values unchanged).
std::string through_casts(const GraphView& v, std::string value) {
  for (int p = v.producer(value); p >= 0 && int_cast(v.node(p)); p = v.producer(value)) value = v.node(p).input(0);
  return value;
}

// The constant integer operands of a Slice (attributes before opset 10, inputs after).
std::optional<std::vector<std::int64_t>> slice_operand(const GraphView& v, const model::Model& m,
                                                       const onnx::NodeProto& n, int input, const char* attr) {
  if (n.input_size() > 1) {
    if (input >= n.input_size() || n.input(input).empty()) return std::nullopt;
    const auto* t = v.constant(n.input(input));
    return t ? model::read_ints(m, *t) : std::nullopt;
  }
  return model::attr_ints(n, attr);
}

// Which dimensions [first, last) of Shape(data) `value` is, if it is a run of them.
std::optional<std::pair<std::int64_t, std::int64_t>> shape_dims(const GraphView& v, const model::Model& m,
                                                                const std::string& value, const std::string& data,
                                                                std::int64_t rank) {
  int p = v.producer(through_casts(v, value));
  if (p < 0) return std::nullopt;
  const onnx::NodeProto* n = &v.node(p);
  // Gather(Shape, k) with a 0-d k is a scalar, which an Unsqueeze on axis 0 makes [1].
  bool unsqueezed = false;
  if (model::is_op(*n, "Unsqueeze")) {
    const auto axes = n->input_size() > 1 ? slice_operand(v, m, *n, 1, "axes") : model::attr_ints(*n, "axes");
    if (!axes || *axes != std::vector<std::int64_t>{0}) return std::nullopt;
    p = v.producer(through_casts(v, n->input(0)));
    if (p < 0) return std::nullopt;
    n = &v.node(p);
    unsqueezed = true;
  }
  const bool gather = model::is_op(*n, "Gather") && n->input_size() == 2 && model::attr_int(*n, "axis", 0) == 0;
  if (!gather && !(model::is_op(*n, "Slice") && !unsqueezed)) return std::nullopt;
  const int shape = v.producer(through_casts(v, n->input(0)));
  if (shape < 0) return std::nullopt;
  const auto& s = v.node(shape);
  if (!model::is_op(s, "Shape") || s.input(0) != data) return std::nullopt;
  // Shape's start/end (opset 15) give a window of the dimensions; indices count within it.
  auto clamp = [](std::int64_t x, std::int64_t size) {
    return std::clamp(x < 0 ? x + size : x, std::int64_t{0}, size);
  };
  const std::int64_t first = clamp(model::attr_int(s, "start", 0), rank);
  const std::int64_t length = clamp(model::attr_int(s, "end", rank), rank) - first;

  std::int64_t dim = 0, end = 0;
  if (gather) {
    const auto* t = v.constant(n->input(1));
    const auto index = t ? model::read_ints(m, *t) : std::nullopt;
    if (!index || index->size() != 1 || t->dims_size() != (unsqueezed ? 0 : 1)) return std::nullopt;
    dim = (*index)[0] < 0 ? (*index)[0] + length : (*index)[0];
    end = dim + 1;
  } else {
    const auto starts = slice_operand(v, m, *n, 1, "starts"), ends = slice_operand(v, m, *n, 2, "ends");
    const auto axes = n->input_size() > 3 || n->input_size() == 1 ? slice_operand(v, m, *n, 3, "axes")
                                                                  : std::optional<std::vector<std::int64_t>>{{0}};
    const auto steps =
        n->input_size() > 4 ? slice_operand(v, m, *n, 4, "steps") : std::optional<std::vector<std::int64_t>>{{1}};
    if (!starts || !ends || starts->size() != 1 || ends->size() != 1) return std::nullopt;
    if (!axes || axes->size() != 1 || (*axes)[0] != 0 || !steps || steps->size() != 1 || (*steps)[0] != 1)
      return std::nullopt;
    dim = clamp((*starts)[0], length);
    end = clamp((*ends)[0], length);
  }
  if (dim < 0 || end <= dim || end > length) return std::nullopt;
  return std::make_pair(dim + first, end + first);
}

class FoldReshapeShape : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    const auto& r = v.node(i);
    if (!model::is_op(r, "Reshape") || r.input_size() != 2 || v.constant(r.input(1))) return false;
    if (model::attr_int(r, "allowzero", 0) != 0) return false;
    const std::string& data = r.input(0);
    const auto in = v.partial_shape(data);
    if (!in) return false;
    const int concat = v.producer(through_casts(v, r.input(1)));
    if (concat < 0 || !model::is_op(v.node(concat), "Concat")) return false;

    std::vector<std::int64_t> target;
    for (const auto& part : v.node(concat).input()) {
      if (const auto* t = v.constant(part)) {
        auto values = model::read_ints(ctx.model, *t);
        if (!values || t->dims_size() != 1) return false;
        for (auto x : *values)
          if (x == 0) return false;  // a literal 0 would now copy a different dimension
        target.insert(target.end(), values->begin(), values->end());
        continue;
      }
      const auto dims = shape_dims(v, ctx.model, part, data, static_cast<std::int64_t>(in->size()));
      if (!dims) return false;
      for (std::int64_t d = dims->first; d < dims->second; ++d) {
        const std::int64_t known = (*in)[static_cast<std::size_t>(d)];
        if (known > 0) {
          target.push_back(known);
        } else if (d == static_cast<std::int64_t>(target.size())) {
          target.push_back(0);
        } else {
          target.push_back(-1);  // valid once: the one size the others leave
        }
      }
    }
    int wildcards = 0;
    for (auto x : target) wildcards += x == -1;
    if (wildcards > 1) return false;
    const std::string& shape = v.add_initializer(
        model::make_int64s(v.unique_name(r.output(0) + "_shape"), {static_cast<std::int64_t>(target.size())}, target));
    v.set_input(i, 1, shape);
    return true;
  }
};

}  // namespace

WINML_PASS(fold_reshape_shape, 405, FoldReshapeShape);

}  // namespace winml::passes

// fuse_layer_norm: the decomposed ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div
// chain (with optional Mul scale and Add bias) becomes LayerNormalization,
// which exists from opset 17. Scale and bias must cover exactly the normalized
// (trailing) dimensions; a missing scale becomes ones.
#include "model/node_util.h"
#include "model/tensor_data.h"
#include "model/tensor_values.h"
#include "passes/patterns.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

class FuseLayerNorm : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    if (ctx.opsets.onnx < 17) {
      if (match_layer_norm(v, i))
        ctx.note("fuse_layer_norm: needs opset >= 17 (model has " + std::to_string(ctx.opsets.onnx) + ")");
      return false;
    }
    auto m = match_layer_norm(v, i);
    if (!m) return false;
    if (m->elem_type != onnx::TensorProto::FLOAT && m->elem_type != onnx::TensorProto::FLOAT16) return false;
    auto shape = v.partial_shape(m->input);
    if (!shape || static_cast<std::int64_t>(shape->size()) < -m->axis) return false;
    std::vector<std::int64_t> normalized(shape->end() + m->axis, shape->end());
    for (auto d : normalized)
      if (d < 0) return false;
    std::int64_t count = 1;
    for (auto d : normalized) count *= d;

    // Validate both parameters before creating anything, so a refused match
    // leaves no trace (the fixed-point loop relies on that).
    auto usable = [&](const std::string& name) {
      if (name.empty()) return true;
      const auto* t = v.constant(name);
      if (!t || t->data_type() != m->elem_type || model::element_count(*t) != count) return false;
      // Leading 1s aside, its dims must be the normalized ones.
      std::vector<std::int64_t> dims(t->dims().begin(), t->dims().end());
      while (dims.size() > normalized.size() && dims.front() == 1) dims.erase(dims.begin());
      return dims == normalized;
    };
    if (!usable(m->scale) || !usable(m->bias)) return false;
    if (m->elem_type != onnx::TensorProto::FLOAT && m->scale.empty()) return false;  // ones are made as float32
    auto materialize = [&](const std::string& name, const char* suffix) -> std::string {
      if (name.empty()) {
        if (std::string(suffix) == "_bias") return "";  // LayerNormalization's B is optional
        std::vector<float> ones(static_cast<std::size_t>(count), 1.0f);
        return v.add_initializer(model::make_floats(v.unique_name(m->output + "_scale"), normalized, ones));
      }
      const auto* t = v.constant(name);
      if (static_cast<std::size_t>(t->dims_size()) == normalized.size()) return name;
      auto bytes = ctx.model.tensor_bytes(*t);
      return v.add_initializer(
          model::make_tensor(v.unique_name(name + suffix), t->data_type(), normalized, bytes.bytes));
    };
    auto scale = std::optional<std::string>(materialize(m->scale, "_scale"));
    auto bias = std::optional<std::string>(materialize(m->bias, "_bias"));
    std::vector<std::string> inputs = {m->input, *scale};
    if (!bias->empty()) inputs.push_back(*bias);
    auto ln = model::make_node(
        "LayerNormalization", inputs, {m->output},
        v.unique_name(v.node(i).name().empty() ? "LayerNormalization" : v.node(i).name() + "_layernorm"));
    model::set_attr_int(ln, "axis", m->axis);
    model::set_attr_float(ln, "epsilon", m->epsilon);
    int last = m->nodes.back();
    for (int n : m->nodes) v.remove_node(n);
    v.add_node(std::move(ln), last);
    return true;
  }
};
}  // namespace

WINML_PASS(fuse_layer_norm, 450, FuseLayerNorm);

}  // namespace winml::passes

#include "runtime/static_shapes.h"

#include <onnx/shape_inference/implementation.h>

#include <unordered_map>

namespace winml::runtime {

namespace {

// Initializers larger than this enter shape inference as typed inputs only:
// their values never decide a shape and copying them would be wasteful.
constexpr std::int64_t kMaxCopiedElements = 4096;

void set_shape(onnx::ValueInfoProto& v, DataType dtype, const Shape& shape) {
  auto* t = v.mutable_type()->mutable_tensor_type();
  t->set_elem_type(dtype);
  auto* s = t->mutable_shape();
  s->clear_dim();
  for (auto d : shape) s->add_dim()->set_dim_value(d);
}

void read_value(const onnx::ValueInfoProto& v, std::map<std::string, StaticType>& out) {
  if (!v.type().has_tensor_type()) return;
  const auto& t = v.type().tensor_type();
  if (!t.has_shape() || t.elem_type() == 0) return;
  StaticType st{t.elem_type(), {}};
  for (const auto& d : t.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return;
    st.shape.push_back(d.dim_value());
  }
  out[v.name()] = std::move(st);
}

bool is_microsoft_qdq(const onnx::NodeProto& n) {
  return n.domain() == "com.microsoft" && (n.op_type() == "QuantizeLinear" || n.op_type() == "DequantizeLinear");
}

// libonnx knows no com.microsoft schema, and its data propagation dereferences
// the type of a Shape's input without checking it (ONNX 1.12): a Shape of a
// com.microsoft DequantizeLinear's output (a QDQ model's shape arithmetic)
// crashed the process. In the copy shape inference works on, those Q/DQ
// become ONNX's (the same shapes and output types), and the outputs of any
// other node without a schema get a type without a shape, which inference
// leaves unknown instead of following a null type.
void prepare_for_inference(onnx::GraphProto& g, const std::unordered_map<std::string, int>& imports) {
  std::vector<onnx::ValueInfoProto> untyped;
  for (auto& n : *g.mutable_node()) {
    if (is_microsoft_qdq(n) && imports.count("")) n.set_domain("");
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) prepare_for_inference(*a.mutable_g(), imports);
      for (auto& sub : *a.mutable_graphs()) prepare_for_inference(sub, imports);
    }
    auto version = imports.find(n.domain());
    const onnx::OpSchema* schema =
        version == imports.end()
            ? nullptr
            : onnx::OpSchemaRegistry::Schema(n.op_type(), version->second, n.domain());
    if (schema) continue;
    for (const auto& o : n.output()) {
      if (o.empty()) continue;
      onnx::ValueInfoProto v;
      v.set_name(o);
      v.mutable_type()->mutable_tensor_type()->set_elem_type(0);
      untyped.push_back(std::move(v));
    }
  }
  for (auto& v : untyped) *g.add_value_info() = std::move(v);
}

}  // namespace

std::map<std::string, StaticType> infer_static_types(const onnx::GraphProto& graph, const Opsets& opsets,
                                                     const std::map<std::string, Shape>& input_shapes) {
  onnx::GraphProto g;
  g.set_name(graph.name());
  std::map<std::string, bool> initialized;
  for (const auto& init : graph.initializer()) {
    std::int64_t n = 1;
    for (auto d : init.dims()) n *= d;
    if (n <= kMaxCopiedElements && init.data_location() != onnx::TensorProto::EXTERNAL) {
      *g.add_initializer() = init;
    } else {
      auto* in = g.add_input();
      in->set_name(init.name());
      set_shape(*in, init.data_type(), Shape(init.dims().begin(), init.dims().end()));
    }
    initialized[init.name()] = true;
  }
  for (const auto& in : graph.input()) {
    if (initialized.count(in.name())) continue;  // the initializer describes it
    auto* copy = g.add_input();
    *copy = in;
    auto it = input_shapes.find(in.name());
    if (it != input_shapes.end() && in.type().has_tensor_type())
      set_shape(*copy, in.type().tensor_type().elem_type(), it->second);
  }
  for (const auto& n : graph.node()) {
    onnx::NodeProto& copy = *g.add_node();
    // An EPContext node's blob (possibly hundreds of megabytes inline) means
    // nothing to shape inference: copy the node without it.
    if (n.op_type() == "EPContext" && n.domain() == "com.microsoft") {
      copy.set_op_type(n.op_type());
      copy.set_domain(n.domain());
      copy.set_name(n.name());
      *copy.mutable_input() = n.input();
      *copy.mutable_output() = n.output();
      continue;
    }
    copy = n;
  }
  for (const auto& o : graph.output()) {
    auto* copy = g.add_output();
    copy->set_name(o.name());
    if (o.type().has_tensor_type())
      copy->mutable_type()->mutable_tensor_type()->set_elem_type(o.type().tensor_type().elem_type());
  }

  std::unordered_map<std::string, int> imports;
  for (const auto& [domain, version] : opsets) imports[domain] = static_cast<int>(version);
  prepare_for_inference(g, imports);
  std::map<std::string, StaticType> result;
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/true);
    onnx::shape_inference::InferShapes(&g, imports, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception&) {
    return result;  // no static shapes: everything is sized at run time
  }
  for (const auto& v : g.input()) read_value(v, result);
  for (const auto& v : g.value_info()) read_value(v, result);
  for (const auto& v : g.output()) read_value(v, result);
  return result;
}

}  // namespace winml::runtime

#include "quant/graph_info.h"

#include <onnx/shape_inference/implementation.h>

#include "model/tensor_data.h"
#include "model/walk.h"

namespace winml::quant {

std::int32_t GraphInfo::elem_type(const std::string& name) const {
  auto it = elem_types.find(name);
  return it == elem_types.end() ? 0 : it->second;
}

namespace {

void record(std::map<std::string, std::int32_t>& types, const onnx::ValueInfoProto& v) {
  if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() != 0)
    types.emplace(v.name(), v.type().tensor_type().elem_type());
}

// Shape inference only needs the values of small constants (shapes, axes);
// weights are left out so a large model is not copied.
onnx::ModelProto skeleton(const onnx::ModelProto& m) {
  constexpr std::uint64_t kKeepBytes = 4096;
  onnx::ModelProto s;
  s.set_ir_version(m.ir_version());
  *s.mutable_opset_import() = m.opset_import();
  *s.mutable_functions() = m.functions();
  const auto& g = m.graph();
  auto* sg = s.mutable_graph();
  *sg->mutable_node() = g.node();
  *sg->mutable_input() = g.input();
  *sg->mutable_output() = g.output();
  *sg->mutable_value_info() = g.value_info();
  for (const auto& t : g.initializer()) {
    auto* c = sg->add_initializer();
    c->set_name(t.name());
    c->set_data_type(t.data_type());
    *c->mutable_dims() = t.dims();
    if (!model::is_external(t) && model::payload_size(t) <= kKeepBytes) *c = t;
  }
  return s;
}

}  // namespace

GraphInfo analyze_graph(const onnx::ModelProto& model) {
  GraphInfo info;
  const auto& g = model.graph();
  for (const auto& t : g.initializer()) {
    info.initializers.emplace(t.name(), &t);
    info.elem_types.emplace(t.name(), t.data_type());
  }
  for (const auto& i : g.input()) {
    if (!info.is_initializer(i.name())) info.graph_inputs.insert(i.name());
    record(info.elem_types, i);
  }
  for (const auto& o : g.output()) {
    info.graph_outputs.insert(o.name());
    record(info.elem_types, o);
  }
  for (const auto& v : g.value_info()) record(info.elem_types, v);
  for (const auto& n : g.node())
    if (n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx"))
      for (const auto& a : n.attribute())
        if (a.name() == "value" && a.has_t() && n.output_size() == 1) info.elem_types.emplace(n.output(0), a.t().data_type());

  onnx::ModelProto s = skeleton(model);
  try {
    onnx::ShapeInferenceOptions options;
    options.check_type = false;
    options.error_mode = 0;  // skip nodes it cannot infer (unknown domains, missing data)
    onnx::shape_inference::InferShapes(s, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception&) {
    // Inference is best effort: values it could not type are simply not quantized.
  }
  for (const auto& v : s.graph().value_info()) record(info.elem_types, v);
  for (const auto& v : s.graph().output()) record(info.elem_types, v);
  return info;
}

std::size_t count_consumers(const onnx::GraphProto& g, const std::string& name) {
  std::size_t n = 0;
  for (const auto& node : g.node()) {
    for (const auto& i : node.input())
      if (i == name) {
        ++n;
        break;
      }
    for (const auto& a : node.attribute()) {
      bool refers = false;
      auto scan = [&](const onnx::GraphProto& sub) {
        model::for_each_graph(sub, [&](const onnx::GraphProto& sg, int) {
          for (const auto& sn : sg.node())
            for (const auto& i : sn.input()) refers = refers || i == name;
        });
      };
      if (a.has_g()) scan(a.g());
      for (const auto& sub : a.graphs()) scan(sub);
      n += refers;
    }
  }
  return n;
}

}  // namespace winml::quant

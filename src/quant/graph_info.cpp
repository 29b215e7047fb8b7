#include "quant/graph_info.h"

#include <onnx/shape_inference/implementation.h>

#include <set>

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

std::int32_t int_attribute(const onnx::NodeProto& n, const char* name, std::int32_t fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return static_cast<std::int32_t>(a.i());
  return fallback;
}

// Element types ONNX shape inference left unknown (operator sets newer than
// the linked ONNX knows, contrib domains), by operator family: the few ops
// whose output type is fixed or named by an attribute, otherwise the type of
// the first typed input (elementwise, data movement, normalisation, ...).
void propagate_types(const onnx::GraphProto& g, std::map<std::string, std::int32_t>& types) {
  using T = onnx::TensorProto;
  static const std::set<std::string> to_int64 = {"Shape", "Size", "NonZero", "ArgMax", "ArgMin", "NonMaxSuppression"};
  static const std::set<std::string> to_bool = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not",
                                                "And",   "Or",   "Xor",     "IsNaN",       "IsInf"};
  for (const auto& n : g.node()) {
    bool missing = false;
    for (const auto& o : n.output()) missing = missing || (!o.empty() && !types.count(o));
    if (!missing) continue;
    std::int32_t t = 0;
    const std::string& op = n.op_type();
    if (to_int64.count(op)) t = T::INT64;
    else if (to_bool.count(op)) t = T::BOOL;
    else if (op == "Cast") t = int_attribute(n, "to", 0);
    else if (op == "DequantizeLinear")
      t = n.input_size() > 1 && types.count(n.input(1)) ? types.at(n.input(1)) : T::FLOAT;
    else if (op == "QuantizeLinear")
      t = n.input_size() > 2 && types.count(n.input(2)) ? types.at(n.input(2))
                                                        : int_attribute(n, "output_dtype", T::UINT8);
    else if (op == "ConstantOfShape") t = T::FLOAT;  // unless its value attribute says otherwise
    for (const auto& a : n.attribute())
      if (op == "ConstantOfShape" && a.name() == "value" && a.has_t()) t = a.t().data_type();
    if (t == 0)
      for (const auto& i : n.input())
        if (auto it = types.find(i); it != types.end()) {
          t = it->second;
          break;
        }
    if (t == 0) continue;
    for (const auto& o : n.output())
      if (!o.empty()) types.emplace(o, t);
  }
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
        if (a.name() == "value" && a.has_t() && n.output_size() == 1)
          info.elem_types.emplace(n.output(0), a.t().data_type());

  onnx::ModelProto s = skeleton(model);
  try {
    onnx::ShapeInferenceOptions options;
    options.check_type = false;
    options.error_mode = 0;  // skip nodes it cannot infer (unknown domains, missing data)
    onnx::shape_inference::InferShapes(s, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception&) {
    // Inference is best effort: values it could not type are simply not quantized.
  }
  // Bodies' values too: they are named uniquely across the model.
  model::for_each_graph(s.graph(), [&](const onnx::GraphProto& g, int) {
    for (const auto& v : g.value_info()) record(info.elem_types, v);
    for (const auto& v : g.output()) record(info.elem_types, v);
    for (const auto& v : g.input()) record(info.elem_types, v);
  });
  model::for_each_graph(model.graph(), [&](const onnx::GraphProto& g, int depth) {
    if (depth == 0) return;
    for (const auto& v : g.value_info()) record(info.elem_types, v);
    for (const auto& t : g.initializer()) info.elem_types.emplace(t.name(), t.data_type());
  });
  model::for_each_graph(model.graph(), [&](const onnx::GraphProto& g, int) { propagate_types(g, info.elem_types); });
  return info;
}

namespace {

// `g`'s body info, given the initializers of the graphs around it; then its own bodies.
void collect_bodies(onnx::GraphProto& g, const GraphInfo& main,
                    const std::map<std::string, const onnx::TensorProto*>& visible, std::vector<Subgraph>& out) {
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      std::vector<onnx::GraphProto*> bodies;
      if (a.has_g()) bodies.push_back(a.mutable_g());
      for (auto& b : *a.mutable_graphs()) bodies.push_back(&b);
      for (onnx::GraphProto* body : bodies) {
        Subgraph sub;
        sub.graph = body;
        GraphInfo& info = sub.info;
        info.elem_types = main.elem_types;
        info.initializers = visible;
        for (const auto& [name, _] : visible) info.outer_initializers.insert(name);
        for (const auto& t : body->initializer()) {
          info.initializers[t.name()] = &t;
          info.outer_initializers.erase(t.name());
        }
        std::set<std::string> produced;
        for (const auto& i : body->input()) {
          if (!info.is_local_initializer(i.name())) info.graph_inputs.insert(i.name());
          produced.insert(i.name());
        }
        for (const auto& o : body->output()) info.graph_outputs.insert(o.name());
        for (const auto& bn : body->node())
          for (const auto& o : bn.output()) produced.insert(o);
        for (const auto& bn : body->node())
          for (const auto& i : bn.input())
            if (!i.empty() && !produced.count(i) && !info.is_initializer(i)) info.graph_inputs.insert(i);
        const std::map<std::string, const onnx::TensorProto*> inner = info.initializers;
        out.push_back(std::move(sub));
        collect_bodies(*body, main, inner, out);
      }
    }
}

}  // namespace

std::vector<Subgraph> analyze_subgraphs(onnx::ModelProto& model, const GraphInfo& main) {
  std::vector<Subgraph> out;
  collect_bodies(*model.mutable_graph(), main, main.initializers, out);
  return out;
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

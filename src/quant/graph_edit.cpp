#include "quant/graph_edit.h"

#include <cstring>
#include <map>

#include "base/error.h"
#include "model/tensor_data.h"
#include "model/walk.h"

namespace winml::quant {

NameGen::NameGen(const onnx::GraphProto& g) {
  model::for_each_graph(g, [&](const onnx::GraphProto& sg, int) {
    for (const auto& v : sg.input()) used_.insert(v.name());
    for (const auto& v : sg.output()) used_.insert(v.name());
    for (const auto& v : sg.value_info()) used_.insert(v.name());
    for (const auto& t : sg.initializer()) used_.insert(t.name());
    for (const auto& n : sg.node()) {
      used_.insert(n.name());
      for (const auto& i : n.input()) used_.insert(i);
      for (const auto& o : n.output()) used_.insert(o);
    }
  });
}

std::string NameGen::unique(const std::string& base) {
  std::string name = base;
  for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  return name;
}

std::vector<float> read_floats(const model::Model& m, const onnx::TensorProto& t) {
  if (t.data_type() != onnx::TensorProto::FLOAT)
    throw BuildError("tensor '" + t.name() + "' is " + model::data_type_name(t.data_type()) + ", not float32");
  model::TensorBytes b = m.tensor_bytes(t);
  auto n = static_cast<std::size_t>(model::element_count(t));
  if (b.bytes.size() != n * sizeof(float))
    throw BuildError("tensor '" + t.name() + "' holds " + std::to_string(b.bytes.size()) + " bytes for " +
                     std::to_string(n) + " floats");
  std::vector<float> v(n);
  if (n) std::memcpy(v.data(), b.bytes.data(), n * sizeof(float));
  return v;
}

onnx::TensorProto make_tensor(const std::string& name, std::int32_t type, const std::vector<std::int64_t>& dims,
                              std::span<const std::byte> data) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (auto d : dims) t.add_dims(d);
  t.set_raw_data(data.data(), data.size());
  return t;
}

onnx::TensorProto make_floats(const std::string& name, const std::vector<std::int64_t>& dims,
                              std::span<const float> values) {
  return make_tensor(name, onnx::TensorProto::FLOAT, dims, std::as_bytes(values));
}

onnx::TensorProto make_ints(const std::string& name, std::int32_t type, const std::vector<std::int64_t>& dims,
                            std::span<const std::int32_t> values) {
  std::size_t size = model::element_size(type);
  std::vector<std::byte> data(values.size() * size);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::int32_t v = values[i];
    switch (type) {
      case onnx::TensorProto::UINT8: { auto x = static_cast<std::uint8_t>(v); std::memcpy(&data[i], &x, 1); break; }
      case onnx::TensorProto::INT8: { auto x = static_cast<std::int8_t>(v); std::memcpy(&data[i], &x, 1); break; }
      case onnx::TensorProto::UINT16: { auto x = static_cast<std::uint16_t>(v); std::memcpy(&data[2 * i], &x, 2); break; }
      case onnx::TensorProto::INT16: { auto x = static_cast<std::int16_t>(v); std::memcpy(&data[2 * i], &x, 2); break; }
      case onnx::TensorProto::INT32: std::memcpy(&data[4 * i], &v, 4); break;
      default: throw BuildError("cannot store integers as " + model::data_type_name(type));
    }
  }
  return make_tensor(name, type, dims, data);
}

onnx::NodeProto make_node(const std::string& op, const std::string& name, std::vector<std::string> inputs,
                          std::vector<std::string> outputs, const std::string& domain) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(name);
  if (!domain.empty()) n.set_domain(domain);
  for (auto& i : inputs) n.add_input(i);
  for (auto& o : outputs) n.add_output(o);
  return n;
}

void set_int_attr(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  for (auto& a : *n.mutable_attribute())
    if (a.name() == name) {
      a.set_i(v);
      return;
    }
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void set_float_attr(onnx::NodeProto& n, const std::string& name, float v) {
  for (auto& a : *n.mutable_attribute())
    if (a.name() == name) {
      a.set_type(onnx::AttributeProto::FLOAT);
      a.set_f(v);
      return;
    }
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void ensure_opset(onnx::ModelProto& m, const std::string& domain, std::int64_t version) {
  for (const auto& o : m.opset_import())
    if (o.domain() == domain) return;
  auto* o = m.add_opset_import();
  o->set_domain(domain);
  o->set_version(version);
}

std::size_t remove_unused_initializers(onnx::GraphProto& g, const std::set<std::string>& candidates) {
  std::set<std::string> read;
  model::for_each_graph(static_cast<const onnx::GraphProto&>(g), [&](const onnx::GraphProto& sg, int) {
    for (const auto& n : sg.node())
      for (const auto& i : n.input())
        if (candidates.count(i)) read.insert(i);
  });
  for (const auto& o : g.output()) read.insert(o.name());
  std::set<std::string> drop;
  for (const auto& c : candidates)
    if (!read.count(c)) drop.insert(c);
  std::size_t before = static_cast<std::size_t>(g.initializer_size());
  remove_initializers(g, drop);
  return before - static_cast<std::size_t>(g.initializer_size());
}

std::size_t fold_constant_identities(onnx::GraphProto& g) {
  std::set<std::string> inits, keep;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  for (const auto& o : g.output()) keep.insert(o.name());
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      auto scan = [&](const onnx::GraphProto& sub) {
        model::for_each_graph(sub, [&](const onnx::GraphProto& sg, int) {
          for (const auto& sn : sg.node())
            for (const auto& i : sn.input()) keep.insert(i);
        });
      };
      if (a.has_g()) scan(a.g());
      for (const auto& sub : a.graphs()) scan(sub);
    }
  std::map<std::string, std::string> alias;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (auto& n : *g.mutable_node()) {
    bool is_identity = n.op_type() == "Identity" && (n.domain().empty() || n.domain() == "ai.onnx") &&
                       n.input_size() == 1 && n.output_size() == 1;
    if (is_identity && inits.count(n.input(0)) && !keep.count(n.output(0)) && !inits.count(n.output(0))) {
      alias[n.output(0)] = n.input(0);
      continue;
    }
    nodes.Add(std::move(n));
  }
  for (auto& n : nodes)
    for (auto& i : *n.mutable_input())
      if (auto a = alias.find(i); a != alias.end()) i = a->second;
  g.mutable_node()->Swap(&nodes);
  return alias.size();
}

void remove_initializers(onnx::GraphProto& g, const std::set<std::string>& names) {
  if (names.empty()) return;
  // Rebuilt in one pass (deleting one by one is quadratic on large graphs).
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (auto& t : *g.mutable_initializer())
    if (!names.count(t.name())) kept.Add(std::move(t));
  g.mutable_initializer()->Swap(&kept);
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  for (auto& v : *g.mutable_input())
    if (!names.count(v.name())) inputs.Add(std::move(v));
  g.mutable_input()->Swap(&inputs);
}

}  // namespace winml::quant

#include "model/node_util.h"

namespace winml::model {

bool is_default_domain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }

bool is_op(const onnx::NodeProto& n, std::string_view op) { return n.op_type() == op && is_default_domain(n.domain()); }

bool has_subgraph(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute())
    if (a.has_g() || a.graphs_size() > 0) return true;
  return false;
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, std::string_view name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

onnx::AttributeProto* find_attr(onnx::NodeProto& n, std::string_view name) {
  for (auto& a : *n.mutable_attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t attr_int(const onnx::NodeProto& n, std::string_view name, std::int64_t fallback) {
  const auto* a = find_attr(n, name);
  return a ? a->i() : fallback;
}

float attr_float(const onnx::NodeProto& n, std::string_view name, float fallback) {
  const auto* a = find_attr(n, name);
  return a ? a->f() : fallback;
}

std::string attr_string(const onnx::NodeProto& n, std::string_view name, const std::string& fallback) {
  const auto* a = find_attr(n, name);
  return a ? a->s() : fallback;
}

std::optional<std::vector<std::int64_t>> attr_ints(const onnx::NodeProto& n, std::string_view name) {
  const auto* a = find_attr(n, name);
  if (!a) return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

namespace {
onnx::AttributeProto& reset_attr(onnx::NodeProto& n, const std::string& name, onnx::AttributeProto::AttributeType t) {
  onnx::AttributeProto* a = find_attr(n, name);
  if (a) a->Clear();
  else a = n.add_attribute();
  a->set_name(name);
  a->set_type(t);
  return *a;
}
}  // namespace

void set_attr_int(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  reset_attr(n, name, onnx::AttributeProto::INT).set_i(v);
}

void set_attr_float(onnx::NodeProto& n, const std::string& name, float v) {
  reset_attr(n, name, onnx::AttributeProto::FLOAT).set_f(v);
}

void set_attr_string(onnx::NodeProto& n, const std::string& name, std::string v) {
  reset_attr(n, name, onnx::AttributeProto::STRING).set_s(std::move(v));
}

void set_attr_ints(onnx::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v) {
  auto& a = reset_attr(n, name, onnx::AttributeProto::INTS);
  for (auto x : v) a.add_ints(x);
}

void remove_attr(onnx::NodeProto& n, std::string_view name) {
  auto* attrs = n.mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i)
    if (attrs->Get(i).name() == name) {
      attrs->DeleteSubrange(i, 1);
      return;
    }
}

const std::string& input_or_empty(const onnx::NodeProto& n, int i) {
  static const std::string empty;
  return i < n.input_size() ? n.input(i) : empty;
}

onnx::NodeProto make_node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name, const std::string& domain) {
  onnx::NodeProto n;
  n.set_op_type(op);
  if (!name.empty()) n.set_name(name);
  if (!domain.empty()) n.set_domain(domain);
  for (const auto& i : inputs) n.add_input(i);
  for (const auto& o : outputs) n.add_output(o);
  return n;
}

void ensure_opset(onnx::ModelProto& m, const std::string& domain, std::int64_t version) {
  for (const auto& o : m.opset_import())
    if (o.domain() == domain) return;
  auto* o = m.add_opset_import();
  o->set_domain(domain);
  o->set_version(version);
}

}  // namespace winml::model

#include "compile/epcontext_node.h"

#include "model/epcontext.h"

namespace winml::compile {

onnx::AttributeProto* find_attribute(onnx::NodeProto& node, const std::string& name) {
  for (auto& a : *node.mutable_attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

void set_int_attribute(onnx::NodeProto& node, const std::string& name, std::int64_t value) {
  onnx::AttributeProto* a = find_attribute(node, name);
  if (!a) a = node.add_attribute();
  a->Clear();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void set_string_attribute(onnx::NodeProto& node, const std::string& name, std::string value) {
  onnx::AttributeProto* a = find_attribute(node, name);
  if (!a) a = node.add_attribute();
  a->Clear();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(std::move(value));
}

onnx::NodeProto make_epcontext_node(const std::string& name, EpContextAttributes a) {
  onnx::NodeProto n;
  n.set_name(name);
  n.set_op_type(model::kEpContextOp);
  n.set_domain(model::kMicrosoftDomain);
  set_int_attribute(n, "main_context", a.main_context);
  set_string_attribute(n, "ep_cache_context", std::move(a.ep_cache_context));
  set_int_attribute(n, "embed_mode", a.embed_mode);
  set_string_attribute(n, "ep_sdk_version", std::move(a.ep_sdk_version));
  set_string_attribute(n, "partition_name", std::move(a.partition_name));
  set_string_attribute(n, "source", std::move(a.source));
  if (!a.notes.empty()) set_string_attribute(n, "notes", std::move(a.notes));
  return n;
}

void import_microsoft_domain(onnx::ModelProto& model) {
  for (const auto& o : model.opset_import())
    if (o.domain() == model::kMicrosoftDomain) return;
  auto* o = model.add_opset_import();
  o->set_domain(model::kMicrosoftDomain);
  o->set_version(1);
}

}  // namespace winml::compile

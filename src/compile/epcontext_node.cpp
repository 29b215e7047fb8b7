#include "compile/epcontext_node.h"

#include "model/epcontext.h"
#include "model/node_util.h"

namespace winml::compile {

onnx::NodeProto make_epcontext_node(const std::string& name, EpContextAttributes a) {
  onnx::NodeProto n;
  n.set_name(name);
  n.set_op_type(model::kEpContextOp);
  n.set_domain(model::kMicrosoftDomain);
  model::set_attr_int(n, "main_context", a.main_context);
  model::set_attr_string(n, "ep_cache_context", std::move(a.ep_cache_context));
  model::set_attr_int(n, "embed_mode", a.embed_mode);
  model::set_attr_string(n, "ep_sdk_version", std::move(a.ep_sdk_version));
  model::set_attr_string(n, "partition_name", std::move(a.partition_name));
  model::set_attr_string(n, "source", std::move(a.source));
  if (!a.notes.empty()) model::set_attr_string(n, "notes", std::move(a.notes));
  return n;
}

void import_microsoft_domain(onnx::ModelProto& m) { model::ensure_opset(m, model::kMicrosoftDomain, 1); }

}  // namespace winml::compile

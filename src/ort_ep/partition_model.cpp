#include "ort_ep/partition_model.h"

#include <set>
#include "base/path_text.h"

namespace winml::ort_ep {

namespace {

// ONNX Runtime's operator sets, as the model's opset imports.
void import_opsets(const GraphReader& reader, const OrtGraph* graph, onnx::ModelProto& m) {
  for (const auto& [domain, version] : reader.opsets(graph)) {
    auto* o = m.add_opset_import();
    o->set_domain(domain);
    o->set_version(version);
  }
}

}  // namespace

model::Model partition_model(const GraphReader& reader, const OrtGraph* graph, const OrtNode* fused_node) {
  model::Model m;
  m.path = from_utf8(reader.model_path(graph));
  m.proto.set_ir_version(reader.ir_version(graph));
  import_opsets(reader, graph, m.proto);
  onnx::GraphProto& g = *m.proto.mutable_graph();
  g.set_name(reader.name(fused_node));
  std::set<std::string> defined;
  for (const OrtValueInfo* v : reader.inputs(fused_node))
    if (v) {
      *g.add_input() = reader.value_info(v);
      defined.insert(g.input(g.input_size() - 1).name());
    }
  for (const OrtValueInfo* v : reader.outputs(fused_node))
    if (v) *g.add_output() = reader.value_info(v);
  for (const OrtNode* node : reader.nodes(graph)) {
    *g.add_node() = reader.node_proto(node);
    std::vector<const OrtValueInfo*> reads = reader.inputs(node);
    for (const OrtValueInfo* v : reader.implicit_inputs(node)) reads.push_back(v);
    for (const OrtValueInfo* v : reads) {
      if (!v) continue;
      std::string name = reader.name(v);
      if (defined.count(name)) continue;
      if (const OrtValue* value = reader.constant(v)) {
        *g.add_initializer() = reader.tensor_proto(name, value);
        defined.insert(std::move(name));
      }
    }
  }
  return m;
}

}  // namespace winml::ort_ep

#include "ort_ep/claims.h"

#include "base/error.h"
#include "compile/node_support.h"
#include "compile/partition.h"
#include "model/epcontext.h"
#include "model/model.h"
#include "runtime/errors.h"
#include "runtime/ref_blob/ref_blob.h"
#include "base/path_text.h"

namespace winml::ort_ep {

bool is_context_node(const GraphReader& reader, const OrtNode* node) {
  return reader.op_type(node) == model::kEpContextOp && reader.domain(node) == model::kMicrosoftDomain;
}

namespace {

// Whether the runtime creates the node's kernel, with ORT's constant
// initializers as its constant inputs. A node the C API cannot fully
// describe, or that the kernel finds malformed, is left to ORT.
bool runtime_runs(const GraphReader& reader, const OrtNode* node, const onnx::NodeProto& proto,
                  const runtime::Opsets& opsets, const model::Model& context,
                  const std::map<std::string, std::int64_t>& dims) {
  std::vector<runtime::Tensor> held;
  std::vector<const OrtValueInfo*> inputs = reader.inputs(node);
  held.reserve(inputs.size());
  std::vector<const runtime::Tensor*> constants;
  for (const OrtValueInfo* v : inputs) {
    const OrtValue* value = v ? reader.constant(v) : nullptr;
    if (!value) {
      constants.push_back(nullptr);
      continue;
    }
    held.push_back(reader.view(value));
    constants.push_back(&held.back());
  }
  return compile::runtime_runs_node(proto, opsets, constants, &context, dims);
}

// A node as partitioning sees it: what it reads (subgraph captures
// included) and what it writes.
onnx::NodeProto edges_of(const GraphReader& reader, const OrtNode* node) {
  onnx::NodeProto n;
  for (const OrtValueInfo* v : reader.inputs(node)) n.add_input(v ? reader.name(v) : "");
  for (const OrtValueInfo* v : reader.implicit_inputs(node)) n.add_input(reader.name(v));
  for (const OrtValueInfo* v : reader.outputs(node)) n.add_output(v ? reader.name(v) : "");
  return n;
}

}  // namespace

Claims claim_nodes(const GraphReader& reader, const OrtGraph* graph, const std::map<std::string, std::int64_t>& dims) {
  Claims claims;
  if (reader.parent_node(graph)) return claims;
  const std::vector<const OrtNode*> nodes = reader.nodes(graph);
  const runtime::Opsets opsets = reader.opsets(graph);
  model::Model context;  // names the model in messages; subgraph tensors are inline
  context.path = from_utf8(reader.model_path(graph));

  onnx::GraphProto g;  // partition_graph follows the nodes' inputs, outputs and captures
  std::vector<bool> supported(nodes.size(), false);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& proto = *g.add_node();
    if (is_context_node(reader, nodes[i])) {
      if (reader.string_attribute(nodes[i], "source").value_or("") == runtime::ref_blob::kSource)
        claims.contexts.push_back(nodes[i]);
      proto = edges_of(reader, nodes[i]);
      continue;
    }
    try {
      proto = reader.node_proto(nodes[i]);
      supported[i] = runtime_runs(reader, nodes[i], proto, opsets, context, dims);
    } catch (const runtime::UnsupportedError&) {
      proto = edges_of(reader, nodes[i]);
    } catch (const InputError&) {
      supported[i] = false;
    }
  }
  auto runs = [&](int i) { return supported[static_cast<std::size_t>(i)]; };
  for (const compile::Partition& p : compile::partition_graph(g, runs)) {
    std::vector<const OrtNode*> group;
    for (int i : p.nodes) group.push_back(nodes[static_cast<std::size_t>(i)]);
    claims.partitions.push_back(std::move(group));
  }
  return claims;
}

}  // namespace winml::ort_ep

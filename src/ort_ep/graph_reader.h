// ONNX Runtime's graph (OrtGraph, OrtNode, OrtValueInfo, read through the C
// API) as the ONNX protobuf the runtime plans: nodes with their attributes,
// subgraphs converted whole, value types, and constant initializers either
// as views of ORT's bytes (to decide support) or copied into tensors (for a
// plan that must outlive ORT's graph).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/onnx.h"
#include "ort_ep/api.h"
#include "runtime/kernel.h"
#include "runtime/tensor.h"

namespace winml::ort_ep {

class GraphReader {
 public:
  explicit GraphReader(const Api& api) : api_(api) {}

  std::vector<const OrtNode*> nodes(const OrtGraph* graph) const;  // topologically sorted
  std::vector<const OrtValueInfo*> inputs(const OrtGraph* graph) const;
  std::vector<const OrtValueInfo*> outputs(const OrtGraph* graph) const;
  runtime::Opsets opsets(const OrtGraph* graph) const;
  std::int64_t ir_version(const OrtGraph* graph) const;
  const OrtNode* parent_node(const OrtGraph* graph) const;
  std::string model_path(const OrtGraph* graph) const;  // empty when loaded from memory

  std::string name(const OrtNode* node) const;
  std::string op_type(const OrtNode* node) const;
  std::string domain(const OrtNode* node) const;
  // Missing optional inputs and outputs are null.
  std::vector<const OrtValueInfo*> inputs(const OrtNode* node) const;
  std::vector<const OrtValueInfo*> outputs(const OrtNode* node) const;
  // Outer-scope values the node's subgraphs read.
  std::vector<const OrtValueInfo*> implicit_inputs(const OrtNode* node) const;
  // The node with its attributes and subgraphs (UnsupportedError for an
  // attribute type the C API cannot read).
  onnx::NodeProto node_proto(const OrtNode* node) const;
  // One string or integer attribute (nullopt when absent).
  std::optional<std::string> string_attribute(const OrtNode* node, const char* name) const;
  std::optional<std::int64_t> int_attribute(const OrtNode* node, const char* name) const;
  // The size of a string attribute, then its bytes copied into `out`.
  std::size_t string_attribute_size(const OrtNode* node, const char* name) const;
  void read_string_attribute(const OrtNode* node, const char* name, char* out, std::size_t size) const;

  std::string name(const OrtValueInfo* value) const;
  // Name, element type and shape (symbolic dimensions by name); no type for
  // values that are not tensors or whose type ORT does not know.
  onnx::ValueInfoProto value_info(const OrtValueInfo* value) const;
  // The value when it is a constant initializer (of this graph or an outer one), else null.
  const OrtValue* constant(const OrtValueInfo* value) const;
  // A read-only view of a tensor ORT owns (valid while ORT keeps it).
  runtime::Tensor view(const OrtValue* value) const;
  // A tensor's bytes copied into a TensorProto named `name`.
  onnx::TensorProto tensor_proto(const std::string& name, const OrtValue* value) const;

  // A whole (sub)graph: inputs, outputs, nodes, and its own initializers
  // copied in (outer-scope values stay references by name).
  onnx::GraphProto graph_proto(const OrtGraph* graph) const;

 private:
  void check(OrtStatus* status, const char* what) const { ort_ep::check(api_, status, what); }
  void read_attribute(const OrtNode* node, const OrtOpAttr* attr, onnx::AttributeProto& out) const;

  const Api& api_;
};

}  // namespace winml::ort_ep

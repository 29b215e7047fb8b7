#include "ort_ep/graph_reader.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "base/error.h"
#include "base/path_text.h"
#include "runtime/errors.h"

namespace winml::ort_ep {

namespace {

// ORT's element type enum is ONNX's TensorProto.DataType, value for value.
runtime::DataType element_type_of(ONNXTensorElementDataType t) { return static_cast<runtime::DataType>(t); }

}  // namespace

std::vector<const OrtNode*> GraphReader::nodes(const OrtGraph* graph) const {
  std::size_t n = 0;
  check(api_.ort->Graph_GetNumNodes(graph, &n), "Graph_GetNumNodes");
  std::vector<const OrtNode*> out(n);
  if (n) check(api_.ort->Graph_GetNodes(graph, out.data(), n), "Graph_GetNodes");
  return out;
}

std::vector<const OrtValueInfo*> GraphReader::inputs(const OrtGraph* graph) const {
  std::size_t n = 0;
  check(api_.ort->Graph_GetNumInputs(graph, &n), "Graph_GetNumInputs");
  std::vector<const OrtValueInfo*> out(n);
  if (n) check(api_.ort->Graph_GetInputs(graph, out.data(), n), "Graph_GetInputs");
  return out;
}

std::vector<const OrtValueInfo*> GraphReader::outputs(const OrtGraph* graph) const {
  std::size_t n = 0;
  check(api_.ort->Graph_GetNumOutputs(graph, &n), "Graph_GetNumOutputs");
  std::vector<const OrtValueInfo*> out(n);
  if (n) check(api_.ort->Graph_GetOutputs(graph, out.data(), n), "Graph_GetOutputs");
  return out;
}

runtime::Opsets GraphReader::opsets(const OrtGraph* graph) const {
  std::size_t n = 0;
  check(api_.ort->Graph_GetNumOperatorSets(graph, &n), "Graph_GetNumOperatorSets");
  std::vector<const char*> domains(n);
  std::vector<std::int64_t> versions(n);
  if (n) check(api_.ort->Graph_GetOperatorSets(graph, domains.data(), versions.data(), n), "Graph_GetOperatorSets");
  runtime::Opsets out;
  for (std::size_t i = 0; i < n; ++i) out[runtime::canonical_domain(domains[i] ? domains[i] : "")] = versions[i];
  return out;
}

std::int64_t GraphReader::ir_version(const OrtGraph* graph) const {
  std::int64_t v = 0;
  check(api_.ort->Graph_GetOnnxIRVersion(graph, &v), "Graph_GetOnnxIRVersion");
  return v;
}

const OrtNode* GraphReader::parent_node(const OrtGraph* graph) const {
  const OrtNode* parent = nullptr;
  check(api_.ort->Graph_GetParentNode(graph, &parent), "Graph_GetParentNode");
  return parent;
}

std::string GraphReader::model_path(const OrtGraph* graph) const {
  const ORTCHAR_T* path = nullptr;
  check(api_.ort->Graph_GetModelPath(graph, &path), "Graph_GetModelPath");
  return path ? to_utf8(std::filesystem::path(path)) : std::string();
}

std::string GraphReader::name(const OrtNode* node) const {
  const char* s = nullptr;
  check(api_.ort->Node_GetName(node, &s), "Node_GetName");
  return s ? s : "";
}

std::string GraphReader::op_type(const OrtNode* node) const {
  const char* s = nullptr;
  check(api_.ort->Node_GetOperatorType(node, &s), "Node_GetOperatorType");
  return s ? s : "";
}

std::string GraphReader::domain(const OrtNode* node) const {
  const char* s = nullptr;
  check(api_.ort->Node_GetDomain(node, &s), "Node_GetDomain");
  return s ? s : "";
}

std::vector<const OrtValueInfo*> GraphReader::inputs(const OrtNode* node) const {
  std::size_t n = 0;
  check(api_.ort->Node_GetNumInputs(node, &n), "Node_GetNumInputs");
  std::vector<const OrtValueInfo*> out(n);
  if (n) check(api_.ort->Node_GetInputs(node, out.data(), n), "Node_GetInputs");
  return out;
}

std::vector<const OrtValueInfo*> GraphReader::outputs(const OrtNode* node) const {
  std::size_t n = 0;
  check(api_.ort->Node_GetNumOutputs(node, &n), "Node_GetNumOutputs");
  std::vector<const OrtValueInfo*> out(n);
  if (n) check(api_.ort->Node_GetOutputs(node, out.data(), n), "Node_GetOutputs");
  return out;
}

std::vector<const OrtValueInfo*> GraphReader::implicit_inputs(const OrtNode* node) const {
  std::size_t n = 0;
  check(api_.ort->Node_GetNumImplicitInputs(node, &n), "Node_GetNumImplicitInputs");
  std::vector<const OrtValueInfo*> out(n);
  if (n) check(api_.ort->Node_GetImplicitInputs(node, out.data(), n), "Node_GetImplicitInputs");
  return out;
}

std::string GraphReader::name(const OrtValueInfo* value) const {
  const char* s = nullptr;
  check(api_.ort->GetValueInfoName(value, &s), "GetValueInfoName");
  return s ? s : "";
}

onnx::ValueInfoProto GraphReader::value_info(const OrtValueInfo* value) const {
  onnx::ValueInfoProto v;
  v.set_name(name(value));
  const OrtTypeInfo* type = nullptr;
  check(api_.ort->GetValueInfoTypeInfo(value, &type), "GetValueInfoTypeInfo");
  if (!type) return v;
  ONNXType kind = ONNX_TYPE_UNKNOWN;
  check(api_.ort->GetOnnxTypeFromTypeInfo(type, &kind), "GetOnnxTypeFromTypeInfo");
  if (kind != ONNX_TYPE_TENSOR) return v;
  const OrtTensorTypeAndShapeInfo* tensor = nullptr;
  check(api_.ort->CastTypeInfoToTensorInfo(type, &tensor), "CastTypeInfoToTensorInfo");
  if (!tensor) return v;
  ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  check(api_.ort->GetTensorElementType(tensor, &element), "GetTensorElementType");
  auto* t = v.mutable_type()->mutable_tensor_type();
  t->set_elem_type(element_type_of(element));
  if (!api_.ort->TensorTypeAndShape_HasShape(tensor)) return v;  // unknown rank
  std::size_t rank = 0;
  check(api_.ort->GetDimensionsCount(tensor, &rank), "GetDimensionsCount");
  std::vector<std::int64_t> dims(rank);
  std::vector<const char*> symbols(rank, nullptr);
  if (rank) {
    check(api_.ort->GetDimensions(tensor, dims.data(), rank), "GetDimensions");
    check(api_.ort->GetSymbolicDimensions(tensor, symbols.data(), rank), "GetSymbolicDimensions");
  }
  auto* shape = t->mutable_shape();  // present even for a scalar
  for (std::size_t i = 0; i < rank; ++i) {
    auto* d = shape->add_dim();
    if (dims[i] >= 0) d->set_dim_value(dims[i]);
    else if (symbols[i] && *symbols[i]) d->set_dim_param(symbols[i]);
  }
  return v;
}

const OrtValue* GraphReader::constant(const OrtValueInfo* value) const {
  bool is_constant = false;
  check(api_.ort->ValueInfo_IsConstantInitializer(value, &is_constant), "ValueInfo_IsConstantInitializer");
  if (!is_constant) return nullptr;
  const OrtValue* v = nullptr;
  check(api_.ort->ValueInfo_GetInitializerValue(value, &v), "ValueInfo_GetInitializerValue");
  return v;
}

runtime::Tensor GraphReader::view(const OrtValue* value) const {
  OrtTensorTypeAndShapeInfo* info = nullptr;
  check(api_.ort->GetTensorTypeAndShape(value, &info), "GetTensorTypeAndShape");
  ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::size_t rank = 0;
  OrtStatus* status = api_.ort->GetTensorElementType(info, &element);
  if (!status) status = api_.ort->GetDimensionsCount(info, &rank);
  runtime::Shape shape(rank);
  if (!status && rank) status = api_.ort->GetDimensions(info, shape.data(), rank);
  api_.ort->ReleaseTensorTypeAndShapeInfo(info);
  check(status, "reading a tensor's type and shape");
  const runtime::DataType dtype = element_type_of(element);
  if (runtime::dtype_size(dtype) == 0)
    throw runtime::UnsupportedError("tensors of type " + runtime::dtype_name(dtype) + " are not supported");
  const void* data = nullptr;
  check(api_.ort->GetTensorData(value, &data), "GetTensorData");
  return runtime::Tensor::view(dtype, std::move(shape), data, nullptr);
}

onnx::TensorProto GraphReader::tensor_proto(const std::string& tensor_name, const OrtValue* value) const {
  runtime::Tensor t = view(value);
  onnx::TensorProto p;
  p.set_name(tensor_name);
  p.set_data_type(t.dtype());
  for (auto d : t.shape()) p.add_dims(d);
  p.set_raw_data(t.raw(), t.bytes());
  return p;
}

std::optional<std::string> GraphReader::string_attribute(const OrtNode* node, const char* attr_name) const {
  const OrtOpAttr* attr = nullptr;
  OrtStatus* status = api_.ort->Node_GetAttributeByName(node, attr_name, &attr);
  if (status) {  // absent
    api_.ort->ReleaseStatus(status);
    return std::nullopt;
  }
  if (!attr) return std::nullopt;
  std::string s(string_attribute_size(node, attr_name), '\0');
  read_string_attribute(node, attr_name, s.data(), s.size());
  return s;
}

std::optional<std::int64_t> GraphReader::int_attribute(const OrtNode* node, const char* attr_name) const {
  const OrtOpAttr* attr = nullptr;
  OrtStatus* status = api_.ort->Node_GetAttributeByName(node, attr_name, &attr);
  if (status) {
    api_.ort->ReleaseStatus(status);
    return std::nullopt;
  }
  if (!attr) return std::nullopt;
  std::int64_t v = 0;
  std::size_t size = 0;
  check(api_.ort->ReadOpAttr(attr, ORT_OP_ATTR_INT, &v, sizeof v, &size), attr_name);
  return v;
}

std::size_t GraphReader::string_attribute_size(const OrtNode* node, const char* attr_name) const {
  const OrtOpAttr* attr = nullptr;
  check(api_.ort->Node_GetAttributeByName(node, attr_name, &attr), attr_name);
  std::size_t size = 0;
  // Asking with no buffer reports the size (and a status saying the buffer is too small).
  if (OrtStatus* status = api_.ort->ReadOpAttr(attr, ORT_OP_ATTR_STRING, nullptr, 0, &size))
    api_.ort->ReleaseStatus(status);
  return size;
}

void GraphReader::read_string_attribute(const OrtNode* node, const char* attr_name, char* out,
                                        std::size_t size) const {
  if (size == 0) return;
  const OrtOpAttr* attr = nullptr;
  check(api_.ort->Node_GetAttributeByName(node, attr_name, &attr), attr_name);
  std::size_t read = 0;
  check(api_.ort->ReadOpAttr(attr, ORT_OP_ATTR_STRING, out, size, &read), attr_name);
  if (read != size) throw BuildError(std::string(attr_name) + ": the attribute changed size while read");
}

void GraphReader::read_attribute(const OrtNode* node, const OrtOpAttr* attr, onnx::AttributeProto& a) const {
  const char* attr_name = nullptr;
  check(api_.ort->OpAttr_GetName(attr, &attr_name), "OpAttr_GetName");
  a.set_name(attr_name ? attr_name : "");
  OrtOpAttrType type = ORT_OP_ATTR_UNDEFINED;
  if (OrtStatus* status = api_.ort->OpAttr_GetType(attr, &type)) {
    api_.ort->ReleaseStatus(status);
    throw runtime::UnsupportedError("attribute '" + a.name() + "' has a type ONNX Runtime's C API does not expose");
  }
  // Sizes first (the call without a buffer fails, reporting the size), then the bytes.
  auto size_of = [&](OrtOpAttrType t) {
    std::size_t size = 0;
    if (OrtStatus* status = api_.ort->ReadOpAttr(attr, t, nullptr, 0, &size)) api_.ort->ReleaseStatus(status);
    return size;
  };
  std::size_t size = 0;
  switch (type) {
    case ORT_OP_ATTR_INT: {
      std::int64_t v = 0;
      check(api_.ort->ReadOpAttr(attr, type, &v, sizeof v, &size), a.name().c_str());
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(v);
      break;
    }
    case ORT_OP_ATTR_FLOAT: {
      float v = 0;
      check(api_.ort->ReadOpAttr(attr, type, &v, sizeof v, &size), a.name().c_str());
      a.set_type(onnx::AttributeProto::FLOAT);
      a.set_f(v);
      break;
    }
    case ORT_OP_ATTR_INTS: {
      std::vector<std::int64_t> v(size_of(type) / sizeof(std::int64_t));
      if (!v.empty()) check(api_.ort->ReadOpAttr(attr, type, v.data(), v.size() * sizeof v[0], &size), a.name().c_str());
      a.set_type(onnx::AttributeProto::INTS);
      for (auto x : v) a.add_ints(x);
      break;
    }
    case ORT_OP_ATTR_FLOATS: {
      std::vector<float> v(size_of(type) / sizeof(float));
      if (!v.empty()) check(api_.ort->ReadOpAttr(attr, type, v.data(), v.size() * sizeof v[0], &size), a.name().c_str());
      a.set_type(onnx::AttributeProto::FLOATS);
      for (auto x : v) a.add_floats(x);
      break;
    }
    case ORT_OP_ATTR_STRING: {
      std::string s(size_of(type), '\0');
      if (!s.empty()) check(api_.ort->ReadOpAttr(attr, type, s.data(), s.size(), &size), a.name().c_str());
      s.resize(size);
      a.set_type(onnx::AttributeProto::STRING);
      a.set_s(std::move(s));
      break;
    }
    case ORT_OP_ATTR_STRINGS: {
      // The strings, each followed by '\0'.
      std::string all(size_of(type), '\0');
      if (!all.empty()) check(api_.ort->ReadOpAttr(attr, type, all.data(), all.size(), &size), a.name().c_str());
      a.set_type(onnx::AttributeProto::STRINGS);
      std::size_t start = 0;
      while (start < all.size()) {
        std::size_t end = all.find('\0', start);
        if (end == std::string::npos) end = all.size();
        a.add_strings(all.substr(start, end - start));
        start = end + 1;
      }
      break;
    }
    case ORT_OP_ATTR_TENSOR: {
      OrtValue* value = nullptr;
      check(api_.ort->OpAttr_GetTensorAttributeAsOrtValue(attr, &value), a.name().c_str());
      if (!value) throw runtime::UnsupportedError("attribute '" + a.name() + "': no tensor");
      try {
        *a.mutable_t() = tensor_proto("", value);
      } catch (...) {
        api_.ort->ReleaseValue(value);
        throw;
      }
      api_.ort->ReleaseValue(value);
      a.set_type(onnx::AttributeProto::TENSOR);
      break;
    }
    default:
      throw runtime::UnsupportedError("attribute '" + a.name() + "' has a type ONNX Runtime's C API does not expose");
  }
  (void)node;
}

onnx::NodeProto GraphReader::node_proto(const OrtNode* node) const {
  onnx::NodeProto n;
  n.set_name(name(node));
  n.set_op_type(op_type(node));
  n.set_domain(domain(node));
  for (const OrtValueInfo* v : inputs(node)) n.add_input(v ? name(v) : std::string());
  for (const OrtValueInfo* v : outputs(node)) n.add_output(v ? name(v) : std::string());
  std::size_t count = 0;
  check(api_.ort->Node_GetNumAttributes(node, &count), "Node_GetNumAttributes");
  std::vector<const OrtOpAttr*> attrs(count);
  if (count) check(api_.ort->Node_GetAttributes(node, attrs.data(), count), "Node_GetAttributes");
  for (const OrtOpAttr* attr : attrs) {
    OrtOpAttrType type = ORT_OP_ATTR_UNDEFINED;
    if (OrtStatus* status = api_.ort->OpAttr_GetType(attr, &type)) api_.ort->ReleaseStatus(status);
    if (type == ORT_OP_ATTR_GRAPH) continue;  // below, through Node_GetSubgraphs
    read_attribute(node, attr, *n.add_attribute());
  }
  std::size_t subgraphs = 0;
  check(api_.ort->Node_GetNumSubgraphs(node, &subgraphs), "Node_GetNumSubgraphs");
  if (subgraphs) {
    std::vector<const OrtGraph*> graphs(subgraphs);
    std::vector<const char*> names(subgraphs);
    check(api_.ort->Node_GetSubgraphs(node, graphs.data(), subgraphs, names.data()), "Node_GetSubgraphs");
    for (std::size_t i = 0; i < subgraphs; ++i) {
      auto* a = n.add_attribute();
      a->set_name(names[i] ? names[i] : "");
      a->set_type(onnx::AttributeProto::GRAPH);
      *a->mutable_g() = graph_proto(graphs[i]);
    }
  }
  // ONNX Runtime keeps a node's attributes in a hash map, whose order is its
  // C++ library's (libstdc++ on Linux, MSVC's on Windows): by name, the blob
  // is the same bytes whichever ONNX Runtime build compiled it.
  std::sort(n.mutable_attribute()->begin(), n.mutable_attribute()->end(),
            [](const onnx::AttributeProto& a, const onnx::AttributeProto& b) { return a.name() < b.name(); });
  return n;
}

onnx::GraphProto GraphReader::graph_proto(const OrtGraph* graph) const {
  onnx::GraphProto g;
  const char* graph_name = nullptr;
  check(api_.ort->Graph_GetName(graph, &graph_name), "Graph_GetName");
  g.set_name(graph_name ? graph_name : "");
  for (const OrtValueInfo* v : inputs(graph)) *g.add_input() = value_info(v);
  for (const OrtValueInfo* v : outputs(graph)) *g.add_output() = value_info(v);
  for (const OrtNode* node : nodes(graph)) *g.add_node() = node_proto(node);
  std::size_t count = 0;
  check(api_.ort->Graph_GetNumInitializers(graph, &count), "Graph_GetNumInitializers");
  std::vector<const OrtValueInfo*> initializers(count);
  if (count) check(api_.ort->Graph_GetInitializers(graph, initializers.data(), count), "Graph_GetInitializers");
  for (const OrtValueInfo* v : initializers) {
    const OrtValue* value = nullptr;
    check(api_.ort->ValueInfo_GetInitializerValue(v, &value), "ValueInfo_GetInitializerValue");
    if (value) *g.add_initializer() = tensor_proto(name(v), value);
  }
  return g;
}

}  // namespace winml::ort_ep

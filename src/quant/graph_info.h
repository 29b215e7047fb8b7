// What the quantizer needs to know about a main graph: initializers, graph
// inputs/outputs, and the element type of every value (declared, or inferred
// with ONNX shape inference on a weight-less copy of the model).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "model/onnx.h"

namespace winml::quant {

struct GraphInfo {
  std::map<std::string, const onnx::TensorProto*> initializers;
  std::set<std::string> graph_inputs;  // real inputs (initializers listed as inputs excluded)
  std::set<std::string> graph_outputs;
  std::map<std::string, std::int32_t> elem_types;

  bool is_initializer(const std::string& name) const { return initializers.count(name) != 0; }
  std::int32_t elem_type(const std::string& name) const;  // 0 when unknown
  bool is_float(const std::string& name) const { return elem_type(name) == onnx::TensorProto::FLOAT; }
};

// `model` must outlive the result (initializer pointers point into it).
GraphInfo analyze_graph(const onnx::ModelProto& model);

// Nodes of the main graph reading `name`, plus one for every subgraph that
// refers to it from an outer scope.
std::size_t count_consumers(const onnx::GraphProto& g, const std::string& name);

}  // namespace winml::quant

// What the quantizer needs to know about a graph -- the main graph or an
// If/Loop/Scan body: initializers (a body's include those of the graphs
// around it, which it may read), graph inputs/outputs, and the element type
// of every value (declared, or inferred with ONNX shape inference on a
// weight-less copy of the model).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/onnx.h"

namespace winml::quant {

struct GraphInfo {
  std::map<std::string, const onnx::TensorProto*> initializers;
  // Real inputs (initializers listed as inputs excluded); for a body also the
  // values it reads from the graphs around it: all exist before its first node.
  std::set<std::string> graph_inputs;
  std::set<std::string> graph_outputs;
  std::map<std::string, std::int32_t> elem_types;
  std::set<std::string> outer_initializers;  // initializers of enclosing graphs (a body may not redefine them)

  bool is_initializer(const std::string& name) const { return initializers.count(name) != 0; }
  bool is_local_initializer(const std::string& name) const {
    return is_initializer(name) && !outer_initializers.count(name);
  }
  std::int32_t elem_type(const std::string& name) const;  // 0 when unknown
  bool is_float(const std::string& name) const { return elem_type(name) == onnx::TensorProto::FLOAT; }
};

// `model` must outlive the result (initializer pointers point into it).
GraphInfo analyze_graph(const onnx::ModelProto& model);

// Every If/Loop/Scan body of `model`, outermost first, each with its info.
// The pointers stay valid while no graph holding a body rebuilds its nodes,
// so bodies are rewritten innermost first (in reverse).
struct Subgraph {
  onnx::GraphProto* graph = nullptr;
  GraphInfo info;
};
std::vector<Subgraph> analyze_subgraphs(onnx::ModelProto& model, const GraphInfo& main);

// Nodes of the main graph reading `name`, plus one for every subgraph that
// refers to it from an outer scope.
std::size_t count_consumers(const onnx::GraphProto& g, const std::string& name);

}  // namespace winml::quant

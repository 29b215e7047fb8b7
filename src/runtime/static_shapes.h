// Static element types and shapes of a graph's values, from ONNX's own shape
// inference (with data propagation, so Shape->Gather->Concat->Reshape chains
// resolve) once symbolic input dimensions are bound. Values it cannot infer
// are simply absent: the runtime then sizes them when they are produced.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "runtime/kernel.h"
#include "runtime/tensor.h"

namespace winml::runtime {

struct StaticType {
  DataType dtype = 0;
  Shape shape;
};

// `input_shapes`: the resolved shape of every graph input. `constants`: small
// constant values shape inference may need (Reshape targets and the like).
std::map<std::string, StaticType> infer_static_types(const onnx::GraphProto& graph, const Opsets& opsets,
                                                     const std::map<std::string, Shape>& input_shapes);

}  // namespace winml::runtime

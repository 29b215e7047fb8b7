// Which nodes the `ref` backend compiles: those whose kernel the runtime can
// create (op and opset registered; attributes, constant inputs and subgraphs
// accepted). The built-in backend and the ONNX Runtime plugin EP
// (ort_ep/) ask the same question, so they claim the same nodes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/model.h"
#include "runtime/kernel.h"
#include "runtime/tensor.h"

namespace winml::compile {

// The opset a node of `domain` is looked up with (as the planner does).
std::int64_t opset_for_domain(const runtime::Opsets& opsets, const std::string& domain);

// True when the runtime can create `node`'s kernel. `constants[i]` is input
// i's value when it is a constant (else null). `model` resolves external data
// of subgraph tensors (may be null when they are inline); `dims` sizes the
// symbolic dimensions of subgraphs.
bool runtime_runs_node(const onnx::NodeProto& node, const runtime::Opsets& opsets,
                       const std::vector<const runtime::Tensor*>& constants, const model::Model* model,
                       const std::map<std::string, std::int64_t>& dims);

}  // namespace winml::compile

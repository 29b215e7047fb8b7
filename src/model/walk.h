// Visitors over every graph (main graph and If/Loop/Scan bodies) and every
// tensor a model holds. Kept in one place so no module forgets subgraphs.
#pragma once

#include <functional>

#include "model/onnx.h"

namespace winml::model {

// fn(graph, depth) for `g` (depth 0) and, recursively, every subgraph attribute.
void for_each_graph(onnx::GraphProto& g, const std::function<void(onnx::GraphProto&, int)>& fn);
void for_each_graph(const onnx::GraphProto& g, const std::function<void(const onnx::GraphProto&, int)>& fn);

enum class TensorSite { kInitializer, kAttribute, kSparseValue };

// fn(tensor, site) for every TensorProto stored in a graph and its subgraphs:
// initializers, sparse initializer values and tensor attributes (Constant
// nodes), in a deterministic order.
void for_each_tensor(onnx::GraphProto& g, const std::function<void(onnx::TensorProto&, TensorSite)>& fn);
void for_each_tensor(const onnx::GraphProto& g, const std::function<void(const onnx::TensorProto&, TensorSite)>& fn);

}  // namespace winml::model

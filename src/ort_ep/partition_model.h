// A fused graph ONNX Runtime hands to OrtEp::Compile, as a model of its own:
// its inputs and outputs are the fused node's (in that order), its nodes
// ORT's, and the constant initializers they read (captures of subgraphs
// included) are copied in, so the plan made from it owes ORT nothing once
// Compile returns.
#pragma once

#include "model/model.h"
#include "ort_ep/graph_reader.h"

namespace winml::ort_ep {

model::Model partition_model(const GraphReader& reader, const OrtGraph* graph, const OrtNode* fused_node);

}  // namespace winml::ort_ep

// What the plugin EP takes of a graph ONNX Runtime offers (OrtEp::GetCapability):
// the nodes winml-make's runtime runs, grouped exactly as the built-in `ref`
// backend groups them (compile/node_support.h, compile/partition.h), and the
// EPContext nodes whose `source` is this EP, each on its own. ORT's CPU EP
// takes the rest.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ort_ep/graph_reader.h"

namespace winml::ort_ep {

struct Claims {
  std::vector<std::vector<const OrtNode*>> partitions;  // fused and compiled, in an order that can run
  std::vector<const OrtNode*> contexts;                  // our EPContext nodes
};

// Nested graphs (the bodies of If, Loop, Scan) are left alone: the runtime
// runs a control-flow node whole, or ORT does.
Claims claim_nodes(const GraphReader& reader, const OrtGraph* graph, const std::map<std::string, std::int64_t>& dims);

// True for a com.microsoft::EPContext node.
bool is_context_node(const GraphReader& reader, const OrtNode* node);

}  // namespace winml::ort_ep

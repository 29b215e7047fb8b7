// The graph in Graphviz dot: one cluster per model, one box per stage node
// (disabled ones dashed), with the latest status and key when known.
#pragma once

#include <functional>
#include <string>

#include "graph/node.h"

namespace winml::graph {

// `label_extra(index)` may add a second line to a node's label (e.g. its status).
std::string to_dot(const Graph& g, const std::function<std::string(std::size_t)>& label_extra = {});

}  // namespace winml::graph

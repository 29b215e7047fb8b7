// Splitting a graph into the parts one backend runs: maximal groups of
// supported nodes that can each be replaced by a single node without
// creating a cycle.
//
// Every node gets a level: the largest number of unsupported nodes on any
// path from the graph's inputs to it. Supported nodes of one level that are
// connected form a partition. A path from one partition to another either
// stays inside supported nodes of one level (then both are the same
// partition) or passes an unsupported node, which raises the level; levels
// never decrease along a path, so the partitions can be contracted in level
// order and the result is acyclic.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/onnx.h"

namespace winml::compile {

struct Partition {
  std::vector<int> nodes;                 // node indices, in graph order
  std::vector<std::string> inputs;        // values read from outside (graph inputs, other nodes; no initializers)
  std::vector<std::string> outputs;       // values used outside or graph outputs, in production order
  std::vector<std::string> initializers;  // initializers the nodes (and their subgraphs) read
};

// Names a node reads: its inputs and the outer-scope names its subgraphs read.
std::vector<std::string> node_reads(const onnx::NodeProto& node);

// `supported(i)` says whether node i of `graph` runs on the backend. Nodes
// must be topologically sorted (as ONNX requires). Partitions come out in an
// order that can execute one after another.
std::vector<Partition> partition_graph(const onnx::GraphProto& graph, const std::function<bool(int)>& supported);

// The nodes of `graph` in a topological order, ties going to the earlier
// node; InputError on a cycle.
std::vector<int> topological_order(const onnx::GraphProto& graph);

}  // namespace winml::compile

// Kahn's algorithm over node indices, always taking the lowest ready index:
// the order depends on the graph alone, and an already sorted graph keeps
// its order. Shared by the runtime's planner and compile's partitioner.
#pragma once

#include <set>
#include <vector>

namespace winml {

struct TopologicalOrder {
  std::vector<int> order;  // every node when the graph is acyclic
  int cycle_node = -1;     // otherwise: the lowest index left waiting on a cycle
};

// deps[i]: the nodes node i reads from (its own index is ignored).
TopologicalOrder stable_topological_order(const std::vector<std::set<int>>& deps);

}  // namespace winml

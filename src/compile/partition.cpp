#include "compile/partition.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "base/error.h"
#include "base/topological_order.h"

namespace winml::compile {

namespace {

void free_names(const onnx::GraphProto& g, std::set<std::string>& out) {
  std::set<std::string> defined;
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& i : g.initializer()) defined.insert(i.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) defined.insert(o);
  for (const auto& n : g.node())
    for (const auto& name : node_reads(n))
      if (!defined.count(name)) out.insert(name);
}

// Union-find over node indices.
int root(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x)
    x = parent[static_cast<std::size_t>(x)] = parent[parent[static_cast<std::size_t>(x)]];
  return x;
}

}  // namespace

std::vector<std::string> node_reads(const onnx::NodeProto& node) {
  std::vector<std::string> reads;
  for (const auto& i : node.input())
    if (!i.empty()) reads.push_back(i);
  std::set<std::string> captured;
  for (const auto& a : node.attribute()) {
    if (a.has_g()) free_names(a.g(), captured);
    for (const auto& g : a.graphs()) free_names(g, captured);
  }
  for (const auto& name : captured)
    if (std::find(reads.begin(), reads.end(), name) == reads.end()) reads.push_back(name);
  return reads;
}

std::vector<int> topological_order(const onnx::GraphProto& graph) {
  const int count = graph.node_size();
  std::map<std::string, int> producer;
  for (int i = 0; i < count; ++i)
    for (const auto& o : graph.node(i).output())
      if (!o.empty()) producer[o] = i;
  std::vector<std::set<int>> deps(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    for (const auto& name : node_reads(graph.node(i))) {
      auto it = producer.find(name);
      if (it != producer.end()) deps[static_cast<std::size_t>(i)].insert(it->second);
    }
  TopologicalOrder sorted = stable_topological_order(deps);
  if (sorted.cycle_node >= 0) {
    const auto& n = graph.node(sorted.cycle_node);
    throw InputError("the graph has a cycle through node '" + n.name() + "' (" + n.op_type() + ")");
  }
  return sorted.order;
}

namespace {

// What partitioning needs of the graph: each value's producer, each node's
// reads and whether the EP supports it.
struct NodeFacts {
  std::map<std::string, int> producer;
  std::vector<std::vector<std::string>> reads;
  std::vector<bool> ok;

  // The node producing `value`, or -1 (a graph input or an initializer).
  int producer_of(const std::string& value) const {
    auto it = producer.find(value);
    return it == producer.end() ? -1 : it->second;
  }
};

NodeFacts facts_of(const onnx::GraphProto& graph, const std::function<bool(int)>& supported) {
  const int count = graph.node_size();
  NodeFacts f;
  for (int i = 0; i < count; ++i)
    for (const auto& o : graph.node(i).output())
      if (!o.empty()) f.producer[o] = i;
  f.reads.resize(static_cast<std::size_t>(count));
  f.ok.resize(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    f.reads[static_cast<std::size_t>(i)] = node_reads(graph.node(i));
    f.ok[static_cast<std::size_t>(i)] = supported(i);
  }
  return f;
}

// Each node's level: how many unsupported nodes lie on the longest path to it.
std::vector<int> levels_of(const onnx::GraphProto& graph, const NodeFacts& f) {
  std::vector<int> level(f.reads.size(), 0);
  for (int i : topological_order(graph)) {
    int l = 0;
    for (const auto& name : f.reads[static_cast<std::size_t>(i)]) {
      const int p = f.producer_of(name);
      if (p < 0) continue;
      l = std::max(l, level[static_cast<std::size_t>(p)] + (f.ok[static_cast<std::size_t>(p)] ? 0 : 1));
    }
    level[static_cast<std::size_t>(i)] = l;
  }
  return level;
}

// Partitions before their boundaries are known: connected supported nodes
// of equal level, each partition's level, and each node's partition (-1: none).
struct Grouping {
  std::vector<Partition> parts;
  std::vector<int> part_level;
  std::vector<int> partition_of;
};

Grouping group_nodes(const NodeFacts& f, const std::vector<int>& level) {
  const int count = static_cast<int>(f.reads.size());
  std::vector<int> parent(static_cast<std::size_t>(count));
  std::iota(parent.begin(), parent.end(), 0);
  for (int i = 0; i < count; ++i) {
    if (!f.ok[static_cast<std::size_t>(i)]) continue;
    for (const auto& name : f.reads[static_cast<std::size_t>(i)]) {
      const int p = f.producer_of(name);
      if (p < 0) continue;
      if (f.ok[static_cast<std::size_t>(p)] && level[static_cast<std::size_t>(p)] == level[static_cast<std::size_t>(i)])
        parent[static_cast<std::size_t>(root(parent, i))] = root(parent, p);
    }
  }
  Grouping g{.partition_of = std::vector<int>(static_cast<std::size_t>(count), -1)};
  std::map<int, int> partition_of_root;  // root -> partition index
  for (int i = 0; i < count; ++i) {
    if (!f.ok[static_cast<std::size_t>(i)]) continue;
    auto [it, fresh] = partition_of_root.emplace(root(parent, i), static_cast<int>(g.parts.size()));
    if (fresh) {
      g.parts.emplace_back();
      g.part_level.push_back(level[static_cast<std::size_t>(i)]);
    }
    g.parts[static_cast<std::size_t>(it->second)].nodes.push_back(i);
    g.partition_of[static_cast<std::size_t>(i)] = it->second;
  }
  return g;
}

// Each partition's inputs and initializers (what its nodes read and no node
// of it makes) and outputs (what it makes that the graph or another
// partition reads), in the order its nodes name them.
void set_boundaries(const onnx::GraphProto& graph, const NodeFacts& f, Grouping& g) {
  std::set<std::string> initializers, graph_inputs, graph_outputs;
  for (const auto& t : graph.initializer()) initializers.insert(t.name());
  for (const auto& i : graph.input()) graph_inputs.insert(i.name());
  for (const auto& o : graph.output()) graph_outputs.insert(o.name());
  std::map<std::string, std::set<int>> readers;  // value -> partitions (or -1: outside) reading it
  for (std::size_t i = 0; i < f.reads.size(); ++i)
    for (const auto& name : f.reads[i]) readers[name].insert(g.partition_of[i]);
  for (std::size_t k = 0; k < g.parts.size(); ++k) {
    Partition& part = g.parts[k];
    std::set<std::string> produced, seen_inputs, seen_inits;
    for (int i : part.nodes)
      for (const auto& o : graph.node(i).output())
        if (!o.empty()) produced.insert(o);
    for (int i : part.nodes)
      for (const auto& name : f.reads[static_cast<std::size_t>(i)]) {
        if (produced.count(name)) continue;
        if (initializers.count(name) && !graph_inputs.count(name)) {
          if (seen_inits.insert(name).second) part.initializers.push_back(name);
        } else if (seen_inputs.insert(name).second) {
          part.inputs.push_back(name);
        }
      }
    for (int i : part.nodes)
      for (const auto& o : graph.node(i).output()) {
        if (o.empty()) continue;
        const auto& r = readers[o];
        const bool outside =
            graph_outputs.count(o) || std::any_of(r.begin(), r.end(), [&](int p) { return p != static_cast<int>(k); });
        if (outside) part.outputs.push_back(o);
      }
  }
}

}  // namespace

std::vector<Partition> partition_graph(const onnx::GraphProto& graph, const std::function<bool(int)>& supported) {
  const NodeFacts facts = facts_of(graph, supported);
  Grouping g = group_nodes(facts, levels_of(graph, facts));
  set_boundaries(graph, facts, g);
  // An order that can run one after another: by level, then first node.
  std::vector<std::size_t> order(g.parts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return g.part_level[a] < g.part_level[b]; });
  std::vector<Partition> sorted;
  for (auto k : order) sorted.push_back(std::move(g.parts[k]));
  return sorted;
}

}  // namespace winml::compile

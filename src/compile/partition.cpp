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

std::vector<Partition> partition_graph(const onnx::GraphProto& graph, const std::function<bool(int)>& supported) {
  const int count = graph.node_size();
  std::set<std::string> initializers, graph_inputs;
  for (const auto& t : graph.initializer()) initializers.insert(t.name());
  for (const auto& i : graph.input()) graph_inputs.insert(i.name());
  std::map<std::string, int> producer;
  for (int i = 0; i < count; ++i)
    for (const auto& o : graph.node(i).output())
      if (!o.empty()) producer[o] = i;

  std::vector<std::vector<std::string>> reads(static_cast<std::size_t>(count));
  std::vector<bool> ok(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    reads[static_cast<std::size_t>(i)] = node_reads(graph.node(i));
    ok[static_cast<std::size_t>(i)] = supported(i);
  }

  // Levels, in a topological order.
  std::vector<int> level(static_cast<std::size_t>(count), 0);
  for (int i : topological_order(graph)) {
    int l = 0;
    for (const auto& name : reads[static_cast<std::size_t>(i)]) {
      auto it = producer.find(name);
      if (it == producer.end()) continue;
      int p = it->second;
      l = std::max(l, level[static_cast<std::size_t>(p)] + (ok[static_cast<std::size_t>(p)] ? 0 : 1));
    }
    level[static_cast<std::size_t>(i)] = l;
  }

  // Connected supported nodes of equal level.
  std::vector<int> parent(static_cast<std::size_t>(count));
  std::iota(parent.begin(), parent.end(), 0);
  for (int i = 0; i < count; ++i) {
    if (!ok[static_cast<std::size_t>(i)]) continue;
    for (const auto& name : reads[static_cast<std::size_t>(i)]) {
      auto it = producer.find(name);
      if (it == producer.end()) continue;
      int p = it->second;
      if (ok[static_cast<std::size_t>(p)] && level[static_cast<std::size_t>(p)] == level[static_cast<std::size_t>(i)])
        parent[static_cast<std::size_t>(root(parent, i))] = root(parent, p);
    }
  }
  std::map<int, int> partition_of_root;  // root -> partition index
  std::vector<Partition> parts;
  std::vector<int> part_level;
  std::vector<int> partition_of(static_cast<std::size_t>(count), -1);
  for (int i = 0; i < count; ++i) {
    if (!ok[static_cast<std::size_t>(i)]) continue;
    int r = root(parent, i);
    auto [it, fresh] = partition_of_root.emplace(r, static_cast<int>(parts.size()));
    if (fresh) {
      parts.emplace_back();
      part_level.push_back(level[static_cast<std::size_t>(i)]);
    }
    parts[static_cast<std::size_t>(it->second)].nodes.push_back(i);
    partition_of[static_cast<std::size_t>(i)] = it->second;
  }

  // Boundaries.
  std::set<std::string> graph_outputs;
  for (const auto& o : graph.output()) graph_outputs.insert(o.name());
  std::map<std::string, std::set<int>> readers;  // value -> partitions (or -1: outside) reading it
  for (int i = 0; i < count; ++i)
    for (const auto& name : reads[static_cast<std::size_t>(i)])
      readers[name].insert(partition_of[static_cast<std::size_t>(i)]);
  for (std::size_t k = 0; k < parts.size(); ++k) {
    Partition& part = parts[k];
    std::set<std::string> produced, seen_inputs, seen_inits;
    for (int i : part.nodes)
      for (const auto& o : graph.node(i).output())
        if (!o.empty()) produced.insert(o);
    for (int i : part.nodes) {
      for (const auto& name : reads[static_cast<std::size_t>(i)]) {
        if (produced.count(name)) continue;
        if (initializers.count(name) && !graph_inputs.count(name)) {
          if (seen_inits.insert(name).second) part.initializers.push_back(name);
        } else if (seen_inputs.insert(name).second) {
          part.inputs.push_back(name);
        }
      }
    }
    for (int i : part.nodes)
      for (const auto& o : graph.node(i).output()) {
        if (o.empty()) continue;
        const auto& r = readers[o];
        bool outside =
            graph_outputs.count(o) || std::any_of(r.begin(), r.end(), [&](int p) { return p != static_cast<int>(k); });
        if (outside) part.outputs.push_back(o);
      }
  }

  // An order that can run one after another: by level, then first node.
  std::vector<std::size_t> order(parts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return part_level[a] < part_level[b]; });
  std::vector<Partition> sorted;
  for (auto k : order) sorted.push_back(std::move(parts[k]));
  return sorted;
}

}  // namespace winml::compile

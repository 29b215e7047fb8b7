#include "graph/dot.h"

namespace winml::graph {

namespace {

std::string dot_id(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string to_dot(const Graph& g, const std::function<std::string(std::size_t)>& label_extra) {
  std::string out = "digraph winml_make {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n";
  for (std::size_t t = 0; t < g.models.size(); ++t) {
    out += "  subgraph " + dot_id("cluster_" + g.models[t]) + " {\n    label=" + dot_id(g.models[t]) + ";\n";
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      if (n.model != g.models[t]) continue;
      std::string label = n.name + "\n" + (n.enabled ? n.primary_output : "(disabled)");
      if (label_extra) {
        std::string extra = label_extra(i);
        if (!extra.empty()) label += "\n" + extra;
      }
      out += "    " + dot_id(n.id()) + " [label=" + dot_id(label) + (n.enabled ? "" : ", style=dashed") + "];\n";
    }
    out += "  }\n";
  }
  for (const auto& n : g.nodes)
    for (std::size_t d : n.deps) out += "  " + dot_id(g.nodes[d].id()) + " -> " + dot_id(n.id()) + ";\n";
  out += "}\n";
  return out;
}

}  // namespace winml::graph

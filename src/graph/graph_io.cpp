#include "graph/graph_io.h"

namespace winml::graph {

using store::field_text;
using store::parse_u64;
using store::RecordWriter;

void write_graph(const Graph& g, std::string& out) {
  RecordWriter w;
  w.field("T").field(static_cast<std::uint64_t>(g.models.size()));
  for (const auto& t : g.models) w.field(t);
  w.finish(out);
  for (const auto& n : g.nodes) {
    w.field("P").field(n.model).field(n.name).field(n.kind).field(n.implementation).field(n.primary_output);
    w.field(std::string_view(n.enabled ? "1" : "0")).field(n.disabled_reason).field(n.static_digest);
    w.field(n.cannot_run);
    w.field(static_cast<std::uint64_t>(n.deps.size()));
    for (auto d : n.deps) w.field(static_cast<std::uint64_t>(d));
    w.field(static_cast<std::uint64_t>(n.extra_inputs.size()));
    for (const auto& e : n.extra_inputs) w.field(static_cast<std::uint64_t>(e.kind)).field(e.path).field(e.name);
    w.finish(out);
  }
}

bool read_graph(store::RecordReader& reader, Graph& g) {
  std::vector<std::string_view> f;
  std::uint64_t n = 0;
  if (!reader.next(f) || f.empty() || f[0] != "T" || f.size() < 2 || !parse_u64(f[1], n) || f.size() != 2 + n)
    return false;
  g.models.clear();
  g.nodes.clear();
  for (std::uint64_t i = 0; i < n; ++i) g.models.push_back(field_text(f[2 + i]));
  while (reader.next(f)) {
    if (f[0] != "P" || f.size() < 12) return false;
    Node node;
    node.model = field_text(f[1]);
    node.name = field_text(f[2]);
    node.kind = field_text(f[3]);
    node.implementation = field_text(f[4]);
    node.primary_output = field_text(f[5]);
    node.enabled = f[6] == "1";
    node.disabled_reason = field_text(f[7]);
    auto sd = store::Digest::from_hex(f[8]);
    if (!sd) return false;
    node.static_digest = *sd;
    node.cannot_run = field_text(f[9]);
    std::size_t at = 10;
    std::uint64_t count = 0;
    if (!parse_u64(f[at++], count) || f.size() < at + count + 1) return false;
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint64_t d = 0;
      if (!parse_u64(f[at++], d) || d >= g.nodes.size()) return false;
      node.deps.push_back(d);
    }
    if (!parse_u64(f[at++], count) || f.size() != at + 3 * count) return false;
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint64_t kind = 0;
      if (!parse_u64(f[at++], kind) || kind > static_cast<std::uint64_t>(InputKind::kModel)) return false;
      InputDecl decl{static_cast<InputKind>(kind), field_text(f[at]), field_text(f[at + 1])};
      at += 2;
      node.extra_inputs.push_back(std::move(decl));
    }
    g.nodes.push_back(std::move(node));
  }
  return !reader.corrupt();
}

}  // namespace winml::graph

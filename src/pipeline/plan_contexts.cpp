#include "pipeline/plan_contexts.h"

#include "store/record_io.h"

namespace winml::pipeline {

namespace {

constexpr const char* kMagic = "winml-make-contexts";
constexpr std::uint64_t kVersion = 1;

bool read_node(const std::vector<std::string_view>& f, DeclaredContext& c) {
  std::size_t i = 1;
  return !f.empty() && f[0] == "N" && read_declared(f, i, c) && i == f.size();
}

}  // namespace

void write_declared(store::RecordWriter& w, const DeclaredContext& c) {
  w.field(c.config.dump());
  store::write_list(w, c.rules);
  store::write_list(w, c.environment);
  w.field(static_cast<std::uint64_t>(c.writes_models));
}

bool read_declared(const std::vector<std::string_view>& f, std::size_t& i, DeclaredContext& c) {
  std::uint64_t writes = 0;
  if (i >= f.size()) return false;
  c.config = nlohmann::json::parse(store::field_text(f[i++]), nullptr, false);
  if (c.config.is_discarded() || !c.config.is_object()) return false;
  if (!store::read_list(f, i, c.rules) || !store::read_list(f, i, c.environment)) return false;
  if (i >= f.size() || !store::parse_u64(f[i++], writes) || writes > 1) return false;
  c.writes_models = writes == 1;
  return true;
}

std::string serialize_contexts(const PlanContexts& contexts) {
  std::string out;
  store::RecordWriter w;
  w.field("H").field(kMagic).field(kVersion).field(contexts.memo_key);
  w.field(static_cast<std::uint64_t>(contexts.nodes.size()));
  w.field(static_cast<std::uint64_t>(contexts.model_settings.size()));
  w.finish(out);
  for (const auto& c : contexts.nodes) {
    w.field("N");
    write_declared(w, c);
    w.finish(out);
  }
  for (const auto& m : contexts.model_settings) {
    w.field("M").field(m);
    w.finish(out);
  }
  return out;
}

std::optional<PlanContexts> parse_contexts(std::string_view text) {
  store::RecordReader reader(text);
  std::vector<std::string_view> f;
  std::uint64_t version = 0, nodes = 0, models = 0;
  if (!reader.next(f) || f.size() != 6 || f[0] != "H" || f[1] != kMagic || !store::parse_u64(f[2], version) ||
      version != kVersion || !store::parse_u64(f[4], nodes) || !store::parse_u64(f[5], models))
    return std::nullopt;
  PlanContexts c;
  auto key = store::Digest::from_hex(f[3]);
  if (!key) return std::nullopt;
  c.memo_key = *key;
  for (std::uint64_t i = 0; i < nodes; ++i) {
    DeclaredContext node;
    if (!reader.next(f) || !read_node(f, node)) return std::nullopt;
    c.nodes.push_back(std::move(node));
  }
  for (std::uint64_t i = 0; i < models; ++i) {
    if (!reader.next(f) || f.size() != 2 || f[0] != "M") return std::nullopt;
    c.model_settings.push_back(store::field_text(f[1]));
  }
  if (reader.next(f) || reader.corrupt()) return std::nullopt;
  return c;
}

}  // namespace winml::pipeline

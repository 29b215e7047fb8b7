#include "pipeline/shard.h"

#include <charconv>

#include "base/error.h"
#include "store/digest.h"

namespace winml::pipeline {

bool Shard::holds(const std::string& model) const { return store::digest_of(model).low % count == index - 1; }

Shard parse_shard(const std::string& text) {
  Shard s;
  const auto slash = text.find('/');
  auto number = [](std::string_view part, unsigned& out) {
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return ec == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), s.index) ||
      !number(std::string_view(text).substr(slash + 1), s.count) || s.count == 0 || s.index == 0 || s.index > s.count ||
      s.count > 10000)
    throw InputError("--shard '" + text + "': expected I/N with 1 <= I <= N (e.g. --shard 2/4)");
  return s;
}

graph::ModelSelection models_in_shard(const Shard& shard, const std::vector<std::string>& all,
                                      const graph::ModelSelection& selected) {
  std::set<std::string> out;
  for (const auto& m : all)
    if (selected.contains(m) && shard.holds(m)) out.insert(m);
  return graph::ModelSelection::only(std::move(out));
}

}  // namespace winml::pipeline

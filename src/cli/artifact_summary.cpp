#include "cli/artifact_summary.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string_view>

#include "base/text.h"
#include "pipeline/stage.h"

namespace winml::cli {

namespace {

// The fields the line shows; the rest of a stage's report is passed over as
// it is read, not built into a tree (a no-op prints this line for every
// model of a small project, and its report parsing was a sixth of the run).
nlohmann::json metrics_of(const graph::NodeResult& r) {
  static constexpr std::string_view kShown[] = {pipeline::kHeadline, "warnings"};
  auto shown = [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (depth != 1 || event != nlohmann::json::parse_event_t::key) return true;
    const auto& key = parsed.get_ref<const std::string&>();
    return std::find(std::begin(kShown), std::end(kShown), key) != std::end(kShown);
  };
  auto m = nlohmann::json::parse(r.metrics_json.view(), shown, /*allow_exceptions=*/false);
  return m.is_object() ? m : nlohmann::json::object();
}

}  // namespace

std::vector<std::string> artifact_summary(const graph::Graph& graph, const std::vector<graph::NodeResult>& results,
                                          const std::string& dir_prefix) {
  std::vector<std::string> lines;
  const auto by_model = graph.nodes_by_model();
  // Every model of a small project; of a big one, those this build changed
  // (a no-op over a thousand models should not parse a thousand reports).
  constexpr std::size_t kAlwaysShown = 8;
  const bool all = graph.models.size() <= kAlwaysShown;
  for (std::size_t mi = 0; mi < graph.models.size(); ++mi) {
    const graph::NodeResult* package = nullptr;
    bool complete = true, changed = false;
    for (std::size_t i : by_model[mi]) {
      const auto& r = results[i];
      if (r.status == graph::Status::kDisabled) continue;
      if (r.status != graph::Status::kCompleted && r.status != graph::Status::kCached &&
          r.status != graph::Status::kUpToDate)
        complete = false;
      if (r.status != graph::Status::kUpToDate) changed = true;
      if (graph.nodes[i].name == "package") package = &r;
    }
    if (!complete || !package || package->outputs.empty() || !(all || changed)) continue;
    std::vector<std::string> parts, warnings;
    for (std::size_t i : by_model[mi]) {
      const auto& name = graph.nodes[i].name;
      if (results[i].status == graph::Status::kDisabled) continue;
      // Parsed only where something is read from them.
      static const std::string headline_key = std::string("\"") + pipeline::kHeadline + "\"";
      const std::string_view metrics = results[i].metrics_json.view();
      if (metrics.find(headline_key) == std::string_view::npos &&
          metrics.find("\"warnings\"") == std::string_view::npos)
        continue;
      const auto m = metrics_of(results[i]);
      if (m.contains(pipeline::kHeadline) && m[pipeline::kHeadline].is_string())
        parts.push_back(m[pipeline::kHeadline].get<std::string>());
      // A stage's fallbacks (per tensor instead of per channel, sizes it chose): below the artifact.
      for (const auto& w : m.value("warnings", nlohmann::json::array()))
        if (w.is_string()) warnings.push_back("    warning: " + name + ": " + w.get<std::string>());
    }
    std::string line = "  " + graph.models[mi] + ": " + dir_prefix + graph.models[mi] + "/";
    // A model compiled into many partitions has a sidecar each: name a few.
    constexpr std::size_t kNamedFiles = 4;
    const auto& files = package->outputs;
    for (std::size_t k = 0; k < files.size() && k < kNamedFiles; ++k)
      line += (k ? " + " : "") + files[k].name + " " + human_bytes(files[k].size);
    if (files.size() > kNamedFiles) {
      std::uint64_t rest = 0;
      for (std::size_t k = kNamedFiles; k < files.size(); ++k) rest += files[k].size;
      line += " + " + std::to_string(files.size() - kNamedFiles) + " more files " + human_bytes(rest);
    }
    for (const auto& p : parts) line += "; " + p;
    lines.push_back(line);
    lines.insert(lines.end(), warnings.begin(), warnings.end());
  }
  return lines;
}

}  // namespace winml::cli

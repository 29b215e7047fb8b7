#include "cli/artifact_summary.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string_view>
#include <nlohmann/json.hpp>

#include "base/text.h"

namespace winml::cli {

namespace {

// The fields the line shows; the rest of a stage's report is passed over as
// it is read, not built into a tree (a no-op prints this line for every
// model of a small project, and its report parsing was a sixth of the run).
nlohmann::json metrics_of(const graph::NodeResult& r) {
  static constexpr std::string_view kShown[] = {"accuracy", "nodes_quantized", "nodes_skipped", "validation",
                                                "warnings"};
  auto shown = [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (depth != 1 || event != nlohmann::json::parse_event_t::key) return true;
    const auto& key = parsed.get_ref<const std::string&>();
    return std::find(std::begin(kShown), std::end(kShown), key) != std::end(kShown);
  };
  auto m = nlohmann::json::parse(r.metrics_json.view(), shown, /*allow_exceptions=*/false);
  return m.is_object() ? m : nlohmann::json::object();
}

std::string decibels(const nlohmann::json& row) {
  const auto& v = row.value("sqnr_db", nlohmann::json());
  if (row.value("constant", false)) return "not measured (constant output)";
  if (row.value("identical", false)) return "identical";
  if (!v.is_number() && row.contains("shape_changed_samples")) return "not comparable (its shape changed)";
  if (!v.is_number()) return "not measured";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f dB", v.get<double>());
  return buf;
}

std::string quantize_part(const nlohmann::json& m) {
  const int quantized = m.value("nodes_quantized", 0), skipped = m.value("nodes_skipped", 0);
  std::string s = "quantized " + std::to_string(quantized) + " node" + (quantized == 1 ? "" : "s");
  if (skipped) s += " (" + std::to_string(skipped) + " skipped)";
  const auto& accuracy = m.value("accuracy", nlohmann::json::array());
  if (!accuracy.empty()) {
    s += ", SQNR";
    for (const auto& a : accuracy) s += " " + a.value("output", std::string("?")) + " " + decibels(a);
  }
  return s;
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
      const bool has_warnings = results[i].metrics_json.find("\"warnings\"") != std::string::npos;
      if (name != "quantize" && name != "compile" && !has_warnings) continue;
      const auto m = metrics_of(results[i]);
      if (name == "quantize") parts.push_back(quantize_part(m));
      if (name == "compile" && m.contains("validation")) parts.push_back("validated");
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

#include "pipeline/manifest.h"

#include <chrono>

#include "base/atomic_file.h"
#include "base/utc_time.h"
#include "config/project.h"
#include "pipeline/auto_optimize.h"
#include "pipeline/layout.h"
#include "store/digest.h"

namespace winml::pipeline {

namespace {

nlohmann::json parse_metrics(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nlohmann::json::object();
}

double round_ms(double s) { return static_cast<double>(static_cast<long long>(s * 1000.0 + 0.5)) / 1000.0; }

}  // namespace

nlohmann::json manifest_json(const BuildPlan& plan, const config::ModelSettings& settings,
                             const std::vector<std::size_t>& nodes, const std::vector<graph::NodeResult>& results,
                             bool interrupted) {
  const auto& g = plan.graph;
  const std::string& name = settings.model.name;
  nlohmann::json stages = nlohmann::json::array();
  double elapsed = 0;
  bool failed = false;
  std::string cache_key;
  int analyze_iterations = 0;
  nlohmann::json discovered = nlohmann::json::object();
  for (std::size_t i : nodes) {
    const graph::Node& n = g.nodes[i];
    const graph::NodeResult& r = results[i];
    nlohmann::json s = nlohmann::json::object();
    s["name"] = n.name;
    s["status"] = graph::status_word(r.status);
    s["implementation"] = r.implementation.empty() ? n.implementation : r.implementation;
    s["filename"] = n.primary_output;
    s["elapsed_seconds"] = round_ms(r.elapsed_seconds);
    if (!r.reason.empty()) s["reason"] = r.reason;
    if (r.has_key) s["key"] = r.key.hex();
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto& in : r.inputs) inputs.push_back({{"name", in.name}, {"digest", in.digest.hex()}});
    s["inputs"] = inputs;
    nlohmann::json outputs = nlohmann::json::array();
    for (const auto& o : r.outputs) outputs.push_back({{"file", o.name}, {"digest", o.digest.hex()}, {"size", o.size}});
    s["outputs"] = outputs;
    // Stage metrics sit next to the standard fields (quantize: nodes_quantized, nodes_skipped).
    nlohmann::json metrics = parse_metrics(r.metrics_json);
    for (const auto& [k, v] : metrics.items())
      if (!s.contains(k)) s[k] = v;
    if (n.name == "optimize") {
      analyze_iterations = metrics.value("analyze_iterations", 0);
      if (metrics.contains("discovered_flags")) discovered = metrics["discovered_flags"];
    }
    if (n.name == "package" && r.has_key) cache_key = r.key.hex();
    if (r.status == graph::Status::kFailed) failed = true;
    elapsed += r.elapsed_seconds;
    stages.push_back(std::move(s));
  }
  nlohmann::json m = nlohmann::json::object();
  m["schema_version"] = kManifestSchemaVersion;
  m["model"] = name;
  m["tool_version"] = WINML_VERSION;
  m["status"] = failed ? "failed" : interrupted ? "interrupted" : "ok";
  m["cache_key"] = cache_key;
  m["config_hash"] = store::digest_of(config::canonical_json_text(settings)).hex();
  m["timestamp"] = utc_now();
  m["elapsed_seconds"] = round_ms(elapsed);
  m["final_artifact"] = kModelFile;
  m["analyze_iterations"] = analyze_iterations;
  m["discovered_flags"] = discovered;
  m["stages"] = stages;
  return m;
}

std::string build_config_text(const config::ModelSettings& settings, const nlohmann::json& discovered_flags) {
  config::ModelSettings t = settings;
  std::map<std::string, bool> flags;
  if (discovered_flags.is_object())
    for (const auto& [k, v] : discovered_flags.items())
      if (v.is_boolean()) flags[k] = v.get<bool>();
  t.optimize.passes = merge_flags(settings.optimize.passes, flags);
  t.build.auto_discover = false;
  t.build.rebuild = false;  // replaying should not delete everything again
  return config::canonical_json_text(t);
}

std::vector<store::OutputFile> write_model_reports(const BuildPlan& plan, const config::ModelSettings& settings,
                                                   const std::vector<std::size_t>& nodes,
                                                   const std::vector<graph::NodeResult>& results,
                                                   const std::filesystem::path& dir, bool interrupted,
                                                   store::DiskInterface& disk) {
  nlohmann::json m = manifest_json(plan, settings, nodes, results, interrupted);
  const std::string config_text = build_config_text(settings, m["discovered_flags"]);
  const std::string manifest_text = m.dump(2) + "\n";
  disk.make_directories(dir);
  disk.write_atomic(dir / kBuildConfigFile, config_text);
  disk.write_atomic(dir / kManifestFile, manifest_text);
  return {{kBuildConfigFile, store::digest_of(config_text), config_text.size()},
          {kManifestFile, store::digest_of(manifest_text), manifest_text.size()}};
}

}  // namespace winml::pipeline

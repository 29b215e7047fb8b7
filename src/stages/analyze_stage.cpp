#include "stages/analyze_stage.h"

#include <algorithm>

#include "analyze/analyze.h"
#include "base/atomic_file.h"
#include "ep/ep_table.h"
#include "model/model_io.h"
#include "passes/optimize.h"
#include "base/path_text.h"

namespace winml::stages {

pipeline::Declarations AnalyzeStage::declare(const config::ModelSettings&) const {
  pipeline::Declarations d;
  d.config = {"compile.ep", "compile.device", "optimize"};
  for (const auto& name : ep::ep_table_names()) d.rules.push_back("ep/" + name + ".toml");
  d.rules.push_back("optimize/presets.toml");
  d.code = {"winml_analyze", "stages/analyze_stage"};
  return d;
}

pipeline::StageResult AnalyzeStage::run(const pipeline::StageContext& ctx) {
  const std::string& ep = ctx.config.compile.ep;
  model::Model m = model::load_model(ctx.input);
  analyze::AnalyzeOptions options;
  options.timestamp = false;
  options.model_path = to_utf8(ctx.input.filename());  // no absolute paths in artifacts
  if (!ctx.config.compile.device.empty()) options.devices[ep] = ctx.config.compile.device;
  nlohmann::json analysis = analyze::analyze_model(m, options);
  write_file_atomic(ctx.output, analysis.dump(2) + "\n");

  auto enabled = passes::resolve_passes(ctx.config.optimize.level, ctx.config.optimize.passes);
  nlohmann::json flags = nlohmann::json::object();
  for (const auto& [pass, on] : analyze::discover_flags(analysis, ep))
    if (on && std::find(enabled.begin(), enabled.end(), pass) == enabled.end()) flags[pass] = true;

  pipeline::StageResult r;
  r.metrics["discovered_flags"] = flags;
  r.metrics["detected_pattern_count"] = analysis["metadata"]["detected_pattern_count"];
  r.metrics["target_ep"] = ep;
  for (const auto& res : analysis["results"])
    if (res["ep"] == ep) r.metrics["runtime_support"] = res["runtime_support"];
  return r;
}

}  // namespace winml::stages

#include "pipeline/auto_optimize.h"

#include <algorithm>

#include "base/atomic_file.h"

namespace winml::pipeline {

std::map<std::string, bool> merge_flags(const std::map<std::string, bool>& explicit_passes,
                                        const std::map<std::string, bool>& flags) {
  std::map<std::string, bool> out = flags;
  for (const auto& [k, v] : explicit_passes) out[k] = v;
  return out;
}

std::string AutoOptimizeStage::implementation() const {
  return optimize_->implementation() + "+auto(" + (analyze_ ? analyze_->implementation() : "no analyze") + ")";
}

Declarations AutoOptimizeStage::declare(const config::ModelSettings& config) const {
  Declarations d = optimize_->declare(config);
  if (analyze_) d.merge(analyze_->declare(config));
  d.merge(Declarations{.config = {"build.auto", "build.max_auto_iterations"}, .code = {"pipeline/auto_optimize"}});
  return d;
}

namespace {

StageContext ctx_with(const config::ModelSettings& cfg, const StageContext& base, const fs::path& input,
                      const std::vector<fs::path>& input_files, const fs::path& output) {
  return StageContext{.config = cfg,
                      .project_dir = base.project_dir,
                      .config_file = base.config_file,
                      .input = input,
                      .input_files = input_files,
                      .output = output,
                      .files = base.files,
                      .environment = base.environment,
                      .writes_models = base.writes_models,
                      .cancel = base.cancel,
                      .log_file = base.log_file};
}

}  // namespace

StageResult AutoOptimizeStage::run(const StageContext& ctx) {
  const std::map<std::string, bool> explicit_passes = ctx.config.optimize.passes;
  std::map<std::string, bool> flags, unapplied;
  config::ModelSettings cfg = ctx.config;
  StageResult result;
  int rounds = 0;
  const int max_rounds = static_cast<int>(std::max<std::int64_t>(1, ctx.config.build.max_auto_iterations));
  const fs::path scratch = ctx.output.parent_path() / (std::string(kTempMarker) + "analyze");
  for (;;) {
    ctx.check_cancel();
    cfg.optimize.passes = merge_flags(explicit_passes, flags);
    StageContext opt_ctx = ctx_with(cfg, ctx, ctx.input, ctx.input_files, ctx.output);
    result = optimize_->run(opt_ctx);
    if (!analyze_) break;
    ctx.check_cancel();
    fs::create_directories(scratch);
    StageContext an_ctx = ctx_with(cfg, ctx, ctx.output, {ctx.output}, scratch / "analyze_result.json");
    StageResult analysis = analyze_->run(an_ctx);
    std::error_code ec;
    fs::remove_all(scratch, ec);
    ++rounds;
    std::map<std::string, bool> found;
    if (analysis.metrics.contains("discovered_flags") && analysis.metrics["discovered_flags"].is_object())
      for (const auto& [k, v] : analysis.metrics["discovered_flags"].items())
        if (v.is_boolean() && !explicit_passes.count(k) && (!flags.count(k) || flags[k] != v.get<bool>()))
          found[k] = v.get<bool>();
    if (found.empty()) break;
    if (rounds >= max_rounds) {
      unapplied = found;
      break;
    }
    for (const auto& [k, v] : found) flags[k] = v;
  }
  result.metrics["auto"] = true;
  result.metrics["analyze_iterations"] = rounds;
  result.metrics["discovered_flags"] = flags;
  if (!unapplied.empty()) result.metrics["unapplied_flags"] = unapplied;
  return result;
}

}  // namespace winml::pipeline

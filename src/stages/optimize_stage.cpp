#include "stages/optimize_stage.h"

#include "model/model_io.h"
#include "passes/optimize.h"

namespace winml::stages {

std::map<std::string, std::string> OptimizeStage::key_values(const config::TargetConfig& config) const {
  return {rules_key_value("optimize/presets.toml"), rules_key_value("ep/" + config.compile.ep + ".toml")};
}

StageResult OptimizeStage::run(const StageContext& ctx) {
  model::Model m = passes::load_model_to_optimize(ctx.input);
  passes::OptimizeReport report = passes::optimize_model(m, passes::OptimizeOptions::from_config(ctx.config.optimize, ctx.config.compile.ep));
  ctx.check_cancel();
  model::save_model(m, ctx.output, ctx.save_options());
  StageResult r;
  r.metrics = report.to_json();  // no timings: metrics stay reproducible
  return r;
}

}  // namespace winml::stages

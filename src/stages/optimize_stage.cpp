#include "stages/optimize_stage.h"
#include "stages/save_options.h"

#include "model/model_io.h"
#include "passes/optimize.h"

namespace winml::stages {

pipeline::Declarations OptimizeStage::declare(const config::ModelSettings& config) const {
  pipeline::Declarations d;
  // build.auto chooses between this stage and the auto-optimizing one: a
  // switch explains as "build.auto: true -> false", not as a key that vanished.
  d.config = {"optimize", "compile.ep", "build.auto"};
  d.rules = {"optimize/presets.toml", "ep/" + config.compile.ep + ".toml"};
  d.code = {"winml_passes", "stages/optimize_stage"};
  d.writes_models = true;
  return d;
}

pipeline::StageResult OptimizeStage::run(const pipeline::StageContext& ctx) {
  model::Model m = passes::load_model_to_optimize(ctx.input);
  passes::OptimizeReport report =
      passes::optimize_model(m, passes::OptimizeOptions::from_config(ctx.config.optimize, ctx.config.compile.ep));
  ctx.check_cancel();
  model::save_model(m, ctx.output, save_options(ctx));
  pipeline::StageResult r;
  r.metrics = report.to_json();  // no timings: metrics stay reproducible
  return r;
}

}  // namespace winml::stages

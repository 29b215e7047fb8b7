#include "stages/compile_stage.h"

#include "base/error.h"
#include "compile/compile.h"
#include "model/model_io.h"

namespace winml::stages {

Declarations CompileStage::declare(const config::TargetConfig& config) const {
  Declarations d;
  d.config = {"compile", "model.dims"};
  d.environment = config.compile.env;
  d.rules = {"ep/" + config.compile.ep + ".toml"};
  d.code = {"winml_compile", "stages/compile_stage"};
  d.writes_models = true;
  return d;
}

StageResult CompileStage::run(const StageContext& ctx) {
  const config::CompileConfig& c = ctx.config.compile;
  compile::CompileOptions o = compile::CompileOptions::from_config(c);
  for (const auto& name : c.env) {
    auto v = ctx.environment.find(name);
    if (v == ctx.environment.end())
      throw InputError(file_error(ctx.config_file, "[compile] env: variable " + name + " is not set"));
    o.env[name] = v->second;
  }
  o.dims = ctx.config.model.dims;
  o.external_data_threshold = ctx.save_options().external_data_threshold;
  o.project_dir = ctx.project_dir;
  o.log_file = ctx.log_file;
  o.cancel = ctx.cancel;
  o.config_origin = ctx.config_file;
  o.log = ctx.start_log();
  ctx.check_cancel();
  StageResult r;
  r.metrics = compile::compile_model(ctx.input, ctx.output, o);
  return r;
}

}  // namespace winml::stages

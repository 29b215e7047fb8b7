#include "stages/compile_stage.h"

#include "base/error.h"
#include "compile/compile.h"
#include "runtime/ref_blob/ref_blob.h"

namespace winml::stages {

std::vector<std::string> CompileStage::environment(const config::TargetConfig& config) const {
  return config.compile.env;
}

std::map<std::string, std::string> CompileStage::key_values(const config::TargetConfig& config) const {
  return {rules_key_value("ep/" + config.compile.ep + ".toml"),
          {"ref_blob_format", std::to_string(runtime::ref_blob::kFormatVersion)}};
}

StageResult CompileStage::run(const StageContext& ctx) {
  const config::CompileConfig& c = ctx.config.compile;
  compile::CompileOptions o;
  o.ep = c.ep;
  o.device = c.device;
  o.embed = c.embed;
  o.validate = c.validate;
  o.command = c.command;
  for (const auto& name : c.env) {
    const char* v = std::getenv(name.c_str());
    if (!v) throw InputError(file_error(ctx.config_file, "[compile] env: variable " + name + " is not set"));
    o.env[name] = v;
  }
  o.dims = ctx.config.model.dims;
  o.external_data_threshold = ctx.external_data_threshold;
  o.project_dir = ctx.project_dir;
  o.log_file = ctx.log_file;
  o.config_origin = ctx.config_file;
  o.log = ctx.start_log();
  ctx.check_cancel();
  StageResult r;
  r.metrics = compile::compile_model(ctx.input, ctx.output, o);
  return r;
}

}  // namespace winml::stages

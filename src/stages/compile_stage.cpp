#include "stages/compile_stage.h"
#include "stages/save_options.h"

#include "base/error.h"
#include "base/path_text.h"
#include "compile/compile.h"
#include "compile/ort_target.h"
#include "model/model_io.h"
#include "ort/library.h"
#include "quant/calibration/samples.h"

namespace winml::stages {

namespace {

// The first calibration sample, which validation feeds: a model whose inputs
// select a branch (a sample rate, say) does not run on all-ones inputs.
void use_first_calibration_sample(const pipeline::StageContext& ctx, compile::CompileOptions& o) {
  const std::string& data = ctx.config.quantize.calibration_data;
  if (data.empty()) return;
  const model::Model m = model::load_model(ctx.input);
  auto samples =
      quant::directory_samples(ctx.project_path(data), 1, quant::model_inputs(m.proto, ctx.config.model.dims, false));
  o.validation_inputs = samples->sample(0);
  o.validation_inputs_origin = "the first calibration sample in " + data;
}

// backend = "ort": the EP is found now, when the plan is made, so a missing
// ORT library, EP library, EP or device stops a build before any stage runs
// (Declarations::cannot_run: InputError, exit 2). What ORT reports enters the
// key: swapping either library reruns compile (and what follows, by content).
void declare_ort_target(const config::ModelSettings& config, pipeline::Declarations& d) {
  compile::CompileOptions o = compile::CompileOptions::from_config(config.compile);
  o.project_dir = config.base_dir;
  o.config_origin = config.config_file.empty() ? "the configuration" : to_utf8(config.config_file);
  for (const auto& [key, where] : config.set_by)
    if (key.starts_with("compile.")) o.ort_set_by[key.substr(8)] = where;
  const compile::OrtTargetSpec spec = compile::ort_target_spec(o, ep::load_ep_table(config.compile.ep));
  d.located = {"compile.ort_library", "compile.ep_library"};  // their digests are the values below
  // Where the default library is looked for.
  if (config.compile.ort_library.empty()) d.plan_environment = ort::default_library_environment();
  d.plan_files.push_back(to_utf8(spec.ort_library));
  if (!spec.ep_library.empty()) d.plan_files.push_back(to_utf8(spec.ep_library));
  const compile::OrtTarget* found = nullptr;
  try {
    found = &compile::find_ort_target(spec);
  } catch (const InputError& e) {
    // Only what runs the stage needs the libraries (status, graph and clean
    // do not); the plan is made again once one appears where it was looked for.
    d.cannot_run = e.what();
    for (const auto& place : spec.ep_library_places) d.plan_files.push_back(to_utf8(place));
    return;
  }
  const compile::OrtTarget& t = *found;
  d.values["onnxruntime.version"] = t.library->version();
  d.values["onnxruntime.library"] = t.ort_library_digest.hex();
  d.values["ep.name"] = t.ep_name;
  d.values["ep.vendor"] = t.ep_vendor;
  d.values["ep.version"] = t.ep_version;
  d.values["ep.hardware"] = t.hardware;
  if (!t.driver_version.empty()) d.values["ep.driver_version"] = t.driver_version;
  if (!spec.ep_library.empty()) d.values["ep.library"] = t.ep_library_digest.hex();
}

}  // namespace

pipeline::Declarations CompileStage::declare(const config::ModelSettings& config) const {
  pipeline::Declarations d;
  d.config = {"compile", "model.dims", "quantize.calibration_data"};
  d.environment = config.compile.env;
  d.rules = {"ep/" + config.compile.ep + ".toml"};
  d.code = {"winml_compile", "stages/compile_stage"};
  // Validation runs on the first calibration sample when there are samples,
  // read by the quantizer's sample reader (its code enters the key too).
  if (!config.quantize.calibration_data.empty()) {
    d.files = {{graph::InputKind::kTree, config.quantize.calibration_data}};
    d.code.push_back("winml_quant");
  }
  if (config.compile.backend == "ort") declare_ort_target(config, d);  // (resolved: always set)
  d.writes_models = true;
  return d;
}

pipeline::StageResult CompileStage::run(const pipeline::StageContext& ctx) {
  const config::CompileConfig& c = ctx.config.compile;
  compile::CompileOptions o = compile::CompileOptions::from_config(c);
  for (const auto& name : c.env) {
    auto v = ctx.environment.find(name);
    if (v == ctx.environment.end())
      throw InputError(file_error(ctx.config_file, "[compile] env: variable " + name + " is not set"));
    o.env[name] = v->second;
  }
  o.dims = ctx.config.model.dims;
  use_first_calibration_sample(ctx, o);
  o.external_data_threshold = save_options(ctx).external_data_threshold;
  o.project_dir = ctx.project_dir;
  o.log_file = ctx.log_file;
  o.cancel = ctx.cancel;
  o.config_origin = ctx.config_file;
  o.log = ctx.start_log();
  ctx.check_cancel();
  pipeline::StageResult r;
  r.metrics = compile::compile_model(ctx.input, ctx.output, o);
  if (r.metrics.contains("validation")) r.metrics[pipeline::kHeadline] = "validated";
  return r;
}

}  // namespace winml::stages

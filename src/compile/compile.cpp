#include "compile/compile.h"

#include "base/error.h"
#include "base/subprocess.h"
#include "compile/ep_target.h"
#include "compile/external_backend.h"
#include "compile/prepare_backend.h"
#include "compile/ref_backend.h"
#include "compile/staging.h"
#include "compile/validate.h"
#include "model/epcontext.h"

namespace winml::compile {

CompileOptions CompileOptions::from_config(const config::CompileConfig& c) {
  CompileOptions o;
  o.ep = c.ep;
  o.device = c.device;
  o.embed = c.embed;
  o.validate = c.validate;
  o.command = c.command;
  return o;
}

namespace fs = std::filesystem;

namespace {

void say(const CompileOptions& o, const std::string& line) {
  if (o.log) o.log(line);
}

std::string summarize_validation(const nlohmann::json& v) {
  if (v.value("mode", "") == "run") {
    std::string outs;
    for (const auto& [name, shape] : v["outputs"].items())
      outs += (outs.empty() ? "" : ", ") + name + " " + shape.dump();
    return "validate: ran on " + v.value("fed", std::string("all-ones inputs")) + ", outputs finite (" + outs + ")";
  }
  return "validate: structure only -- " + v.value("reason", std::string());
}

}  // namespace

nlohmann::json compile_model(const fs::path& input, const fs::path& output, const CompileOptions& options) {
  model::Model in = model::load_model(input);
  model::refuse_epcontext_input(in.proto, input.string(),
                                " and cannot be compiled again. Compile the model from before compilation.");
  const EpTarget target = ep_target(options.ep);
  const bool external = target.aot_compile && options.ep != "ref";
  if (!options.command.empty() && !external)
    throw InputError(file_error(options.config_origin, "a vendor compiler (" + options.command_setting +
                                                           ") is only used for EPs compiled ahead of "
                                                           "time (aot_compile = true in rules/ep/<ep>.toml); ep = \"" +
                                                           options.ep + "\" is compiled by winml-make itself"));
  fs::create_directories(output.parent_path().empty() ? fs::path(".") : output.parent_path());

  nlohmann::json metrics;
  if (options.ep == "ref") {
    say(options, "compile: ref backend, embed = " + std::string(options.embed ? "true" : "false"));
    RefOptions ro;
    ro.embed = options.embed;
    ro.dims = options.dims;
    ro.external_data_threshold = options.external_data_threshold;
    metrics = compile_ref(std::move(in), output, ro);
    for (const auto& p : metrics["partitions"])
      say(options, "compile: partition " + p["name"].get<std::string>() + ": " + std::to_string(p["nodes"].get<int>()) +
                       " nodes, blob " + p["blob"].get<std::string>() + " (" +
                       std::to_string(p["blob_bytes"].get<std::uint64_t>()) + " bytes)");
    if (!metrics["nodes_not_compiled"].empty())
      say(options,
          "compile: left outside the blobs (the runtime has no kernel): " + metrics["nodes_not_compiled"].dump());
  } else if (!target.aot_compile) {
    say(options, "compile: " + target.ep_type + " compiles at load time; writing the prepared model");
    PrepareOptions po;
    po.external_data_threshold = options.external_data_threshold;
    metrics = prepare_model(std::move(in), output, target, po);
  } else {
    if (options.command.empty())
      throw InputError(file_error(
          options.config_origin,
          "ep = \"" + options.ep + "\" (" + target.ep_type +
              ") needs ahead-of-time compilation with the vendor's SDK, which winml-make does not bundle: give "
              "the compiler to run in " +
              options.command_setting + ", e.g. [\"python\", \"compile_" + options.ep +
              ".py\", \"{input}\", \"{output}\"] (placeholders: {input}, {output}, {output_dir}, {embed}, {device}; "
              "the environment it needs goes in [compile] env / --env), or choose ep = \"ref\" (built in) or an EP "
              "that compiles at load time (cpu, dml)"));
    say(options, "compile: running the " + options.ep + " compiler");
    ExternalOptions eo;
    eo.command = options.command;
    eo.env = options.env;
    eo.embed = options.embed;
    eo.device = options.device;
    eo.cwd = options.project_dir;
    eo.log_file = options.log_file;
    eo.cancel = options.cancel;
    metrics = compile_external(input, output, target, eo);
    for (const auto& b : metrics["blobs"])
      say(options, "compile: blob " + b["file"].get<std::string>() + " (" +
                       std::to_string(b["bytes"].get<std::uint64_t>()) + " bytes)");
  }
  metrics["ep"] = options.ep;
  metrics["ep_type"] = target.ep_type;

  if (options.validate) {
    ValidateOptions vo;
    vo.dims = options.dims;
    vo.threads = options.threads;
    if (!options.validation_inputs.empty()) {
      vo.inputs = options.validation_inputs;
      vo.inputs_origin = options.validation_inputs_origin;
    }
    metrics["validation"] = validate_compiled(output, vo);
    say(options, summarize_validation(metrics["validation"]));
    if (metrics["validation"].contains("warnings")) {
      metrics["warnings"] = metrics["validation"]["warnings"];
      for (const auto& w : metrics["warnings"]) say(options, "warning: " + w.get<std::string>());
    }
  } else {
    metrics["validation"] = {{"mode", "skipped"}};
    say(options, "validate: skipped (validate = false)");
  }
  return metrics;
}

nlohmann::json compile_model_file(const fs::path& input, const fs::path& output, const CompileOptions& options) {
  if (fs::exists(output) && fs::equivalent(input, output))
    throw InputError(file_error(output.string(), "the output must not be the input model"));
  nlohmann::json metrics;
  write_model_staged(output, [&](const fs::path& staged) { metrics = compile_model(input, staged, options); });
  return metrics;
}

}  // namespace winml::compile

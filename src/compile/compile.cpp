#include "compile/compile.h"

#include "base/error.h"
#include "base/path_text.h"
#include "base/subprocess.h"
#include "compile/backend.h"
#include "compile/external_backend.h"
#include "compile/ort_backend.h"
#include "compile/ort_run.h"
#include "compile/prepare_backend.h"
#include "compile/ref_backend.h"
#include "compile/staging.h"
#include "compile/validate.h"
#include "ep/ep_table.h"
#include "model/epcontext.h"

namespace winml::compile {

CompileOptions CompileOptions::from_config(const config::CompileConfig& c) {
  CompileOptions o;
  o.ep = c.ep;
  o.device = c.device;
  o.backend = c.backend;
  o.ort_library = c.ort_library;
  o.ep_library = c.ep_library;
  o.provider_options = c.provider_options;
  o.session_options = c.session_options;
  o.embed = c.embed;
  o.validate = c.validate;
  o.command = c.command;
  return o;
}

namespace fs = std::filesystem;

OrtTargetSpec ort_target_spec(const CompileOptions& o, const ep::EpTable& ep_table) {
  OrtTargetSpec s;
  s.ep_name = ep_table.ep_type;
  s.ep = ep_table.name;
  set_libraries(s, o.ort_library, o.ep_library, o.project_dir);
  s.set_by = o.ort_set_by;
  s.device = o.device.empty() ? ep_table.default_device : o.device;
  s.origin = o.config_origin;
  s.settings = o.ort_settings;
  return s;
}

void say(const CompileOptions& o, const std::string& line) {
  if (o.log) o.log(line);
}

namespace {

// [compile] backend's values (config::kCompileBackends), each a file of its own.
constexpr Backend kBackends[] = {{"ort", &compile_with_ort, /*in_ort=*/true},
                                 {"command", &compile_with_command},
                                 {"ref", &compile_with_ref},
                                 {"prepare", &compile_with_prepare}};

std::string summarize_validation(const nlohmann::json& v) {
  if (v.value("mode", "") == "run") {
    std::string outs;
    for (const auto& [name, shape] : v["outputs"].items())
      outs += (outs.empty() ? "" : ", ") + name + " " + shape.dump();
    std::string where = v.contains("runtime") ? " in " + v["runtime"].get<std::string>() + " with " +
                                                    v.value("execution_provider", std::string())
                                              : "";
    std::string diff;
    if (v.contains("difference"))
      for (const auto& [name, d] : v["difference"].items())
        diff += "; " + name + " differs from the uncompiled model by at most " + d["max_abs"].dump() + " (span " +
                d["span"].dump() + ")";
    return "validate: ran" + where + " on " + v.value("fed", std::string("all-ones inputs")) + ", outputs finite (" +
           outs + ")" + diff;
  }
  return "validate: structure only -- " + v.value("reason", std::string());
}

// Runs the compiled model (in ONNX Runtime for a backend that compiles
// there) unless validation is off; its warnings join the metrics'.
nlohmann::json validation_of(const fs::path& input, const fs::path& output, const CompileOptions& options,
                             const Backend& backend, const ep::EpTable& ep_table, nlohmann::json& metrics) {
  if (!options.validate) {
    say(options, "validate: skipped (validate = false)");
    return {{"mode", "skipped"}};
  }
  ValidateOptions vo;
  vo.dims = options.dims;
  vo.threads = options.threads;
  if (!options.validation_inputs.empty()) {
    vo.inputs = options.validation_inputs;
    vo.inputs_origin = options.validation_inputs_origin;
  }
  nlohmann::json v = backend.in_ort
                         ? validate_in_ort(output, input, find_ort_target(ort_target_spec(options, ep_table)),
                                           options.provider_options, vo)
                         : validate_compiled(output, vo);
  say(options, summarize_validation(v));
  if (v.contains("warnings")) {
    metrics["warnings"] = v["warnings"];
    for (const auto& w : metrics["warnings"]) say(options, "warning: " + w.get<std::string>());
  }
  return v;
}

}  // namespace

const Backend& backend_named(const std::string& name) {
  for (const Backend& b : kBackends)
    if (b.name == name) return b;
  throw BuildError("no compile backend is called '" + name + "'");
}

nlohmann::json compile_model(const fs::path& input, const fs::path& output, const CompileOptions& options) {
  model::Model in = model::load_model(input);
  model::refuse_epcontext_input(in.proto, to_utf8(input),
                                " and cannot be compiled again. Compile the model from before compilation.");
  const ep::EpTable ep_table = ep::load_ep_table(options.ep);
  config::CompileConfig section;  // the backend as a build resolves and checks it
  section.ep = options.ep;
  section.backend = options.backend;
  section.command = options.command;
  section.ort_library = options.ort_library;
  section.ep_library = options.ep_library;
  section.provider_options = options.provider_options;
  section.session_options = options.session_options;
  section = config::compile_schema()->resolved(section);
  if (std::string problem = config::backend_problem(section); !problem.empty()) {
    // Named as the user sets it (a subcommand's flags).
    for (auto at = problem.find("[compile] command"); at != std::string::npos;
         at = problem.find("[compile] command", at + options.command_setting.size()))
      problem.replace(at, std::string("[compile] command").size(), options.command_setting);
    throw InputError(file_error(options.config_origin, problem));
  }
  const Backend& backend = backend_named(section.backend.value_or(""));
  // The EP before anything is written: a missing one is an input error.
  if (backend.in_ort) find_ort_target(ort_target_spec(options, ep_table));
  fs::create_directories(output.parent_path().empty() ? fs::path(".") : output.parent_path());
  nlohmann::json metrics = backend.compile({in, input, output, options, ep_table});
  metrics["ep"] = options.ep;
  metrics["ep_type"] = ep_table.ep_type;

  nlohmann::json validation = validation_of(input, output, options, backend, ep_table, metrics);
  metrics["validation"] = std::move(validation);
  return metrics;
}

nlohmann::json compile_model_file(const fs::path& input, const fs::path& output, const CompileOptions& options) {
  if (fs::exists(output) && fs::equivalent(input, output))
    throw InputError(file_error(to_utf8(output), "the output must not be the input model"));
  nlohmann::json metrics;
  write_model_staged(output, [&](const fs::path& staged) { metrics = compile_model(input, staged, options); });
  return metrics;
}

}  // namespace winml::compile

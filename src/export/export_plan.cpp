#include "export/export_plan.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/glob_match.h"
#include "base/rules.h"
#include "base/subprocess.h"
#include "base/system_names.h"
#include "base/this_process.h"
#include "model/model_io.h"
#include "model/path_safety.h"
#include "model/sidecars.h"
#include "base/path_text.h"

namespace winml::exporting {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPython = system_names::kPython;

std::vector<std::string> expand_inputs(const std::vector<std::string>& patterns, const fs::path& project_dir,
                                       const std::string& config_file) {
  std::set<std::string> files;
  for (const auto& pattern : patterns) {
    if (!model::is_safe_relative(pattern))
      throw InputError(file_error(
          config_file, "[export] inputs: '" + pattern + "' must be a relative path inside the project (no '..')"));
    const std::vector<std::string> matched = expand_glob(project_dir, pattern);
    if (matched.empty())
      throw InputError(
          file_error(config_file, "[export] inputs: '" + pattern + "' matches no file in " + to_utf8(project_dir)));
    files.insert(matched.begin(), matched.end());
  }
  return {files.begin(), files.end()};
}

std::vector<std::string> torchvision_command(const config::ExportConfig& cfg) {
  std::vector<std::string> argv = {kPython,        "{recipe}",
                                   "--model",      cfg.torchvision,
                                   "--out",        "{output}",
                                   "--opset",      std::to_string(cfg.opset),
                                   "--batch-size", std::to_string(cfg.batch_size)};
  if (!cfg.weights.empty()) argv.insert(argv.end(), {"--weights", cfg.weights});
  for (const auto& t : cfg.input_tensors) {
    std::string dims;
    for (const auto& d : t.shape) {
      if (!d.is_number_integer())
        throw InputError("[export] input_tensors: '" + t.name + "' needs integer dimensions for tracing");
      dims += (dims.empty() ? "" : ",") + std::to_string(d.get<std::int64_t>());
    }
    argv.insert(argv.end(), {"--input", t.name + ":" + t.dtype + ":" + dims});
  }
  if (!cfg.dynamic_axes.empty()) argv.insert(argv.end(), {"--dynamic-axes", cfg.dynamic_axes.dump()});
  return argv;
}

}  // namespace

ExportPlan plan_export(const config::ExportConfig& cfg, const fs::path& project_dir, const std::string& config_file,
                       const std::map<std::string, std::string>& environment) {
  ExportPlan plan;
  if (!cfg.torchvision.empty()) {
    plan.command = torchvision_command(cfg);
    plan.recipe_name = to_utf8(fs::path(kTorchvisionRecipe).filename());
    auto text = rules::active().read(kTorchvisionRecipe);
    if (!text)
      throw BuildError("the torchvision export recipe (rules/" + std::string(kTorchvisionRecipe) + ") is missing");
    plan.recipe_text = *text;
    if (!cfg.weights.empty()) plan.input_files = expand_inputs({cfg.weights}, project_dir, config_file);
  } else if (!cfg.command.empty()) {
    plan.command = cfg.command;
  } else {
    throw InputError(file_error(config_file, "no [export] command or torchvision model to produce export.onnx"));
  }
  auto declared = expand_inputs(cfg.inputs, project_dir, config_file);
  plan.input_files.insert(plan.input_files.end(), declared.begin(), declared.end());
  std::sort(plan.input_files.begin(), plan.input_files.end());
  plan.input_files.erase(std::unique(plan.input_files.begin(), plan.input_files.end()), plan.input_files.end());
  for (const auto& name : cfg.env) {
    auto v = environment.find(name);
    if (v == environment.end())
      throw InputError(file_error(config_file, "[export] env: variable " + name + " is not set"));
    plan.env[name] = v->second;
  }
  return plan;
}

void run_export(const ExportPlan& plan, const fs::path& project_dir, const fs::path& output, const fs::path& log_file,
                const model::SaveOptions& save, const std::atomic<bool>* cancel) {
  fs::create_directories(output.parent_path());
  // A fresh directory per run: nothing a previous (killed) run left can be
  // mistaken for this run's output.
  fs::path work = output.parent_path() / (".export.winml-tmp." + std::to_string(current_process_id()));
  fs::remove_all(work);
  fs::create_directories(work);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{work};

  fs::path temp_output = work / output.filename();
  std::map<std::string, std::string> values = {{"output", to_utf8(temp_output)}, {"output_dir", to_utf8(work)}};
  if (!plan.recipe_name.empty()) {
    fs::path recipe = work / plan.recipe_name;
    write_file_atomic(recipe, plan.recipe_text);
    values["recipe"] = to_utf8(recipe);
    if (find_program(plan.command.front()).empty())
      throw BuildError("the torchvision export needs " + plan.command.front() + " " +
                       system_names::kTorchInstallHint);
  }
  ProcessSpec spec;
  spec.argv = substitute_placeholders(plan.command, values, "[export] command");
  spec.cwd = project_dir;
  spec.env = plan.env;
  spec.log_file = log_file;
  spec.cancel = cancel;
  fs::remove(log_file);
  write_file_atomic(log_file, "$ " + quote_command(spec.argv) + "\n");
  ProcessResult r = run_process(spec);
  auto failure = [&](const std::string& what) {
    return BuildError("export command " + what + ": " + quote_command(spec.argv) + "\n--- last lines of " +
                      to_utf8(log_file) + " ---\n" + tail_lines(log_file, 15));
  };
  if (!r.started) throw BuildError("export command could not start: " + r.error);
  if (r.exit_code != 0) throw failure("failed with exit code " + std::to_string(r.exit_code));
  if (!fs::exists(temp_output)) throw failure("exited 0 but did not write {output} (" + to_utf8(temp_output) + ")");
  model::Model exported;
  try {
    exported = model::load_model(temp_output);
  } catch (const InputError& e) {
    throw failure(std::string("wrote an unusable model (") + e.what() + ")");
  }
  model::save_model(exported, output, save);
}

}  // namespace winml::exporting

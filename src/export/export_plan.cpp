#include "export/export_plan.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
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

// `pretrained`: the weights [export] weights names, loaded from `checkpoint`.
std::vector<std::string> torchvision_command(const config::ExportConfig& cfg,
                                             const std::optional<config::PretrainedWeights>& pretrained,
                                             const fs::path& checkpoint) {
  std::vector<std::string> argv = {kPython,        "{recipe}",
                                   "--model",      cfg.torchvision,
                                   "--out",        "{output}",
                                   "--opset",      std::to_string(cfg.opset),
                                   "--batch-size", std::to_string(cfg.batch_size)};
  if (pretrained) argv.insert(argv.end(), {"--weights-enum", pretrained->name, "--checkpoint", to_utf8(checkpoint)});
  else if (!cfg.weights.empty()) argv.insert(argv.end(), {"--weights", cfg.weights});
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

std::string variable(const char* name) { return environment_variable(name).value_or(""); }

}  // namespace

fs::path torch_checkpoints_dir() {
  std::string home = variable("TORCH_HOME");
  if (home.empty()) {
    const std::string cache = variable("XDG_CACHE_HOME");
    home = (cache.empty() ? std::string("~/.cache") : cache) + "/torch";
  }
  if (home == "~" || home.starts_with("~/")) {
    const std::string user = home_directory();
    if (user.empty()) return {};
    home = user + home.substr(1);
  }
  return fs::absolute(from_utf8(home)).lexically_normal() / "hub" / "checkpoints";
}

std::vector<std::string> torch_checkpoints_variables() {
  std::vector<std::string> names = {"TORCH_HOME", "XDG_CACHE_HOME"};
  names.insert(names.end(), home_directory_variables().begin(), home_directory_variables().end());
  return names;
}

std::string missing_checkpoint_message(const config::PretrainedWeights& w, const fs::path& checkpoint,
                                       const std::string& weights_value, const std::string& set_at) {
  return file_error(to_utf8(checkpoint),
                    "no such file: the checkpoint of torchvision's pretrained weights " + w.name + " for " + w.model +
                        " ([export] weights = \"" + weights_value + "\" at " + set_at +
                        "); winml-make downloads nothing: download " + w.url + " into " +
                        to_utf8(checkpoint.parent_path()) +
                        "/, or set TORCH_HOME to a folder whose hub/checkpoints/ holds it");
}

ExportPlan plan_export(const config::ExportConfig& cfg, const fs::path& project_dir, const std::string& config_file,
                       const std::map<std::string, std::string>& environment, const fs::path& checkpoint) {
  ExportPlan plan;
  if (!cfg.torchvision.empty()) {
    std::optional<config::PretrainedWeights> pretrained;
    if (config::names_pretrained_weights(cfg.weights)) {
      std::string problem;
      pretrained = config::find_pretrained_weights(cfg.torchvision, cfg.weights, &problem);
      if (!pretrained)
        throw InputError(file_error(config_file, "'export.weights' is '" + cfg.weights + "': " + problem));
      if (checkpoint.empty())
        throw BuildError("pretrained weights " + pretrained->name + " for " + cfg.torchvision +
                         ": no checkpoint file was declared for them");
      if (to_utf8(checkpoint.filename()) != pretrained->file)
        throw BuildError("pretrained weights " + pretrained->name + " for " + cfg.torchvision + " load " +
                         pretrained->file + ", not " + to_utf8(checkpoint));
      if (!fs::is_regular_file(checkpoint))
        throw InputError(missing_checkpoint_message(*pretrained, checkpoint, cfg.weights, config_file));
    }
    plan.command = torchvision_command(cfg, pretrained, checkpoint);
    plan.recipe_name = to_utf8(fs::path(kTorchvisionRecipe).filename());
    auto text = rules::active().read(kTorchvisionRecipe);
    if (!text)
      throw BuildError("the torchvision export recipe (rules/" + std::string(kTorchvisionRecipe) + ") is missing");
    plan.recipe_text = *text;
    if (!cfg.weights.empty() && !pretrained)
      plan.input_files = expand_inputs({cfg.weights}, project_dir, config_file);
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

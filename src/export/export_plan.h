// How export.onnx is produced for a model that has no `[model] source`: the
// user's `[export] command`, or the built-in torchvision recipe (a Python
// script shipped in rules/export/). The plan lists everything that must enter
// the export key besides the [export] config section: declared input files
// (resolved from `inputs` globs), the values of declared env variables, and
// for pretrained weights the checkpoint torchvision loads.
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/torchvision_weights.h"
#include "model/model_io.h"

namespace winml::exporting {

struct ExportPlan {
  // argv with "{output}" (and "{output_dir}") placeholders still in place.
  std::vector<std::string> command;
  // Project files whose contents enter the key, sorted, relative to the project.
  std::vector<std::string> input_files;
  // Declared environment: passed to the command and part of the key.
  std::map<std::string, std::string> env;
  // A recipe script shipped with the tool (empty for user commands); written
  // next to the output before running, its text is part of the key.
  std::string recipe_name;
  std::string recipe_text;
};

// The built-in recipe's path in rules/.
inline constexpr const char* kTorchvisionRecipe = "export/torchvision_export.py";

// Where torch keeps the checkpoints it downloads, found from this process's
// environment as torch.hub finds it: $TORCH_HOME, else $XDG_CACHE_HOME/torch,
// else ~/.cache/torch (a leading '~' is the home directory), then
// hub/checkpoints. Empty when nothing locates it (no variable, no home).
std::filesystem::path torch_checkpoints_dir();
// The environment variables torch_checkpoints_dir() reads.
std::vector<std::string> torch_checkpoints_variables();

// Why `checkpoint`, the file `w` loads from, cannot be used (it is not
// there): names the file, the URL it comes from and where to put it.
// `weights_value` is [export] weights as written, `set_at` where ("winml.toml:6:1").
std::string missing_checkpoint_message(const config::PretrainedWeights& w, const std::filesystem::path& checkpoint,
                                       const std::string& weights_value, const std::string& set_at);

// Resolves globs (relative to `project_dir`, no absolute paths or '..'), takes
// the declared variables from `environment` (the set ones). InputError naming
// the config file on a pattern that matches nothing or an unset variable.
// When [export] weights names torchvision's pretrained weights
// (config/torchvision_weights.h), `checkpoint` is the file they load from
// (the stage declares it: its digest enters the key); the recipe loads that
// file, and an InputError (missing_checkpoint_message) says when it is not
// there, before anything runs.
ExportPlan plan_export(const config::ExportConfig& cfg, const std::filesystem::path& project_dir,
                       const std::string& config_file, const std::map<std::string, std::string>& environment,
                       const std::filesystem::path& checkpoint = {});

// Runs the plan so that it writes `output` (and maybe `output`.data). The
// command runs in `project_dir` against a fresh temporary directory next to
// `output`; its stdout/stderr go to `log_file`. The result must load as an
// ONNX model; it is then saved in place the way every stage saves (`save`:
// deterministic bytes, weights in `output`.data at the external-data
// threshold, whatever layout the exporter chose); `cancel` stops the command
// (see ProcessSpec). BuildError with the
// command, exit code and the log's last lines on failure.
void run_export(const ExportPlan& plan, const std::filesystem::path& project_dir, const std::filesystem::path& output,
                const std::filesystem::path& log_file, const model::SaveOptions& save = {},
                const std::atomic<bool>* cancel = nullptr);

}  // namespace winml::exporting

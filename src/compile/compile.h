// The compile step: one entry point that turns an ONNX model into what the
// target execution provider loads, then validates it.
//
//   backend = "ort"       ONNX Runtime's compile API with the EP, built into
//                         ORT or from a plugin library (ort_backend.h); the
//                         default for EPs compiled ahead of time
//   backend = "command"   the vendor's compiler, `[compile] command`
//                         (external_backend.h); the default when one is given
//   backend = "ref"       winml-make's own, for ep = "ref" (ref_backend.h)
//   backend = "prepare"   the checked model, for EPs that compile at load time
//                         (prepare_backend.h)
//
// An input that is already an EPContext model is refused (InputError).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compile/ort_target.h"
#include "config/config.h"
#include "ep/ep_table.h"
#include "model/model_io.h"
#include "model/tensor_file.h"

namespace winml::compile {

struct CompileOptions {
  std::string ep = "cpu";
  std::string device;   // [compile] device (vendor compilers' {device}); empty: the EP's default
  std::optional<std::string> backend;  // [compile] backend; unset: the EP's default
  bool embed = false;
  bool validate = true;
  std::vector<std::string> command;          // vendor compiler (placeholders)
  std::map<std::string, std::string> env;    // its environment
  // backend = "ort": as configured, relative to project_dir (ort_target.h).
  std::string ort_library, ep_library;
  std::map<std::string, std::string> provider_options, session_options;
  std::map<std::string, std::int64_t> dims;  // [model] dims
  // Validation feeds these (the first calibration sample); other inputs get ones.
  std::map<std::string, model::TensorFile> validation_inputs;
  std::string validation_inputs_origin;  // for the log: "the first calibration sample (DIR)"
  std::uint64_t external_data_threshold = model::kDefaultExternalDataThreshold;
  std::filesystem::path project_dir;  // where a vendor compiler runs
  std::filesystem::path log_file;     // a vendor compiler's output
  // Names the configuration in messages: the config file, or "the command line".
  std::string config_origin = "the command line";
  // How the user sets the vendor compiler and the ORT target, for messages.
  std::string command_setting = "[compile] command";
  OrtTargetSpec::Settings ort_settings;
  std::map<std::string, std::string> ort_set_by;  // OrtTargetSpec::set_by
  std::function<void(const std::string&)> log;  // progress and notes, one line each
  int threads = 0;                              // validation
  const std::atomic<bool>* cancel = nullptr;    // stops a vendor compiler

  // The [compile] keys (resolved: `device` filled), as builds and the
  // subcommand both take them; the rest is the caller's.
  static CompileOptions from_config(const config::CompileConfig& c);
};

// The EP to find in ONNX Runtime for backend = "ort" (ort_target.h).
OrtTargetSpec ort_target_spec(const CompileOptions& options, const ep::EpTable& ep_table);

// Compiles `input` to `output` (sidecars next to it), writing directly: the
// caller provides a fresh directory (a build stage's private output).
// Returns metrics: {"ep", "backend", ..., "validation": {...}}.
nlohmann::json compile_model(const std::filesystem::path& input, const std::filesystem::path& output,
                             const CompileOptions& options);

// The same for a destination that may hold an earlier result: nothing is
// written unless compile and validation succeed, and the earlier model's
// sidecars are removed.
nlohmann::json compile_model_file(const std::filesystem::path& input, const std::filesystem::path& output,
                                  const CompileOptions& options);

}  // namespace winml::compile

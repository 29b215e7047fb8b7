// The stage interface: what an export, analyze, optimize, quantize, compile or
// package implementation provides, and what it is given when it runs.
//
// A stage never decides whether it must run: the engine does, from the key
// made of everything the stage declares here (the config it reads, its
// implementation and version, its inputs). A stage only turns inputs into
// outputs, deterministically: the same inputs and config must give the same
// bytes, or early cutoff and the cache cannot work.
//
// Plugging in an implementation is one line in stages/builtin.cpp (see there).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "graph/node.h"

namespace winml::model {
struct SaveOptions;
}

namespace winml::stages {

namespace fs = std::filesystem;

// What a stage sees when it runs.
struct StageContext {
  // The model's resolved configuration. For optimize under `[build] auto`,
  // optimize.passes already holds the flags discovered so far.
  const config::TargetConfig& config;
  fs::path project_dir;  // relative paths in the config are relative to this
  std::string config_file;  // for error messages about the configuration
  // The previous stage's artifact (e.g. optimized.onnx for quantize) and all
  // its files (sidecars included). Empty for export.
  fs::path input;
  std::vector<fs::path> input_files;
  // Where to write the artifact. Its directory is private to this run and
  // empty: write sidecars (<name>.onnx.data, EPContext .bin files) next to it;
  // every file left there becomes an output. Use model::save_model(m, output,
  // save_options()), which also writes atomically.
  fs::path output;
  std::vector<fs::path> extra_inputs;  // what extra_inputs() declared, resolved to files
  std::uint64_t external_data_threshold = 100ull << 20;  // [build] external_data_threshold_mib
  const std::atomic<bool>* cancel = nullptr;
  // Where the stage may write a log (e.g. an external command's output); it
  // is kept after the build for the user, and is not an output.
  fs::path log_file;

  model::SaveOptions save_options() const;  // defined with model I/O (stages/stage.cpp)
  bool cancelled() const { return cancel && cancel->load(); }
  // Throws graph::Interrupted when the build is being interrupted (SIGINT);
  // call it between long steps.
  void check_cancel() const;
  fs::path project_path(const std::string& relative) const;
  // Starts the stage log afresh and returns a function appending one line to
  // it (a no-op without a log file).
  std::function<void(const std::string&)> start_log() const;
};

struct StageResult {
  // Lands in build_manifest.json under the stage (e.g. quantize:
  // nodes_quantized, nodes_skipped). Analyze: "discovered_flags" {pass: bool}
  // feeds the auto loop.
  nlohmann::json metrics = nlohmann::json::object();
};

// A file of rules/ (e.g. "ep/qnn.toml") as a key_values() entry: named
// "rules/<path>", valued by its text ("" when absent), so editing the data a
// stage reads (or a project's rules/ overlay) reruns it.
std::pair<std::string, std::string> rules_key_value(const std::string& path);

class Stage {
 public:
  virtual ~Stage() = default;

  // Name of the implementation, e.g. "winml-quantize" or "package".
  virtual std::string implementation() const = 0;
  // Bump whenever the outputs for the same inputs and config change: it is
  // part of every key, so old results stop matching.
  virtual int version() const = 0;
  // The configuration the stage reads: whole sections ("quantize") or single
  // keys ("compile.ep", "build.external_data_threshold_mib"). Exactly these
  // values enter the key; read nothing else from StageContext::config.
  virtual std::vector<std::string> config_keys() const = 0;
  // Files the stage reads besides its input model (calibration data, export
  // scripts): their contents enter the key. Paths relative to the project.
  virtual std::vector<graph::InputDecl> extra_inputs(const config::TargetConfig& config) const { return {}; }
  // Environment variables whose values the stage reads (they enter the key).
  virtual std::vector<std::string> environment(const config::TargetConfig& config) const { return {}; }
  // Anything else the output depends on, by name (e.g. the text of a recipe
  // script the stage runs, a vendor compiler's version). Enters the key.
  virtual std::map<std::string, std::string> key_values(const config::TargetConfig& config) const { return {}; }

  // Writes ctx.output (and sidecars). Bad input: throw InputError naming the
  // file; stage failure: BuildError. Returns metrics for the manifest.
  virtual StageResult run(const StageContext& ctx) = 0;
};

}  // namespace winml::stages

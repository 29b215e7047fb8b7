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
#include "pipeline/declarations.h"

namespace winml::pipeline {

namespace fs = std::filesystem;

// What a stage sees when it runs: built by the engine from the stage's
// Declarations and nothing else.
struct StageContext {
  // The model's configuration as declared: the declared keys hold the
  // project's values, every other key is empty (config/subset.h). For
  // optimize under `[build] auto`, optimize.passes already holds the flags
  // discovered so far.
  const config::ModelSettings& config;
  fs::path project_dir;     // relative paths in the config are relative to this
  std::string config_file;  // for error messages about the configuration
  // The previous stage's artifact (e.g. optimized.onnx for quantize) and all
  // its files (sidecars included). Empty for export.
  fs::path input;
  std::vector<fs::path> input_files;
  // Where to write the artifact. Its directory is private to this run and
  // empty: write sidecars (<name>.onnx.data, EPContext .bin files) next to it;
  // every file left there becomes an output. Use model::save_model(m, output,
  // save_options(ctx)) (stages/save_options.h), which also writes atomically.
  fs::path output;
  std::vector<fs::path> files;  // Declarations::files, resolved
  // The declared environment variables that are set (and only those).
  std::map<std::string, std::string> environment;
  bool writes_models = false;  // Declarations::writes_models
  const std::atomic<bool>* cancel = nullptr;
  // Where the stage may write a log (e.g. an external command's output); it
  // is kept after the build for the user, and is not an output.
  fs::path log_file;

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
  // feeds the auto loop. Metrics are cached with the outputs: no absolute
  // paths or timings in them. Two keys any stage may set are shown by the
  // build's summary, which knows no stage's metrics: kHeadline (a string:
  // what the stage did, in a few words) and "warnings" (strings: every
  // fallback the result hides).
  nlohmann::json metrics = nlohmann::json::object();
};
inline constexpr const char* kHeadline = "headline";

class Stage {
 public:
  virtual ~Stage() = default;

  // Name of the implementation, e.g. "winml-quantize" or "package".
  virtual std::string implementation() const = 0;
  // Everything the output depends on besides the input artifact, for the
  // model configured as `config` (pipeline/declarations.h). Exactly this enters
  // the key and reaches run(); the code units' digests replace version numbers.
  virtual Declarations declare(const config::ModelSettings& config) const = 0;
  // Writes ctx.output (and sidecars). Bad input: throw InputError naming the
  // file; stage failure: BuildError. Returns metrics for the manifest.
  virtual StageResult run(const StageContext& ctx) = 0;
};

}  // namespace winml::pipeline

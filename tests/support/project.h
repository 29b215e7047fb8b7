// A winml-make project in a temp directory, built with the real binary; every
// run uses the project's own cache directory (never the user's).
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace winml::test {

class Project {
 public:
  Project();
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path out(const std::string& model, const std::string& file = "") const;
  std::filesystem::path cache_dir() const { return cache_; }
  // The environment that points winml-make at this project's cache (for runs outside run()).
  std::map<std::string, std::string> cache_env() const { return {{"WINML_MAKE_CACHE_DIR", cache_.string()}}; }
  void use_cache(const std::filesystem::path& dir) { cache_ = dir; }

  // A small real model (GraphBuilder's linear model, weights from `seed`).
  void write_model(const std::string& file, std::uint32_t seed, std::int64_t in = 8, std::int64_t out = 4);
  void write_config(const std::string& toml);
  void write(const std::string& file, const std::string& text);
  // net.onnx (write_model's, seed 1) as the only model, `extra_config` after its [model] table.
  void write_small_project(const std::string& extra_config = "");
  // Links an exported test model and its .onnx.data sidecar (if any) into the
  // project: hard links on the same file system, copies elsewhere.
  void link_exported_model(const std::string& file);

  CliResult run(std::vector<std::string> args, std::map<std::string, std::string> env = {}) const;
  // Runs with --json and parses the report; fails the test on a bad exit code or report.
  nlohmann::json build(std::vector<std::string> args = {}, int expected_exit = 0,
                       std::map<std::string, std::string> env = {}) const;

  // Copies the project (without its output directory) to `dest`.
  void clone_to(const std::filesystem::path& dest) const;

 private:
  TempDir dir_;
  std::filesystem::path root_, cache_;
};

// "model/stage" -> status, from a --json report.
std::map<std::string, std::string> statuses(const nlohmann::json& report);
// Stages of one model with status `status`, e.g. {"quantize", "compile"}.
std::vector<std::string> stages_with(const nlohmann::json& report, const std::string& model, const std::string& status);

// Every regular file below `dir` (relative path -> contents), skipping the
// state directory and the run-specific manifest.
std::map<std::string, std::string> artifacts(const std::filesystem::path& dir);
// File name -> digest of every file of one model folder but the manifest,
// for models too big to hold in memory.
std::map<std::string, std::string> artifact_digests(const std::filesystem::path& model_dir);

// A winml-make process running in the background, in its own process group
// (tests/support/posix/background.cpp; on Windows, windows/background.cpp:
// a process group of its own for console events and a job object).
class Background {
 public:
  Background(const std::vector<std::string>& args, const std::filesystem::path& cwd,
             const std::map<std::string, std::string>& env);
  ~Background();
  long long pid() const { return pid_; }
  // SIGINT or SIGTERM (on Windows both are Ctrl-Break, what a console sends).
  void signal(int sig);
  // Whether signal() reaches winml-make here; else `why` says why (Wine 8
  // delivers no console event that one process generates to another:
  // tests/windows/console_stop.sh sends Ctrl-C in a pseudo-terminal instead).
  static bool signals_arrive(std::string& why);
  void signal_group(int sig);  // to winml-make and everything it started
  void kill_group();           // SIGKILL to all of them (Windows: the job terminated)
  // The exit code wait() reports for a winml-make that kill_group() ended
  // (POSIX: 128 + SIGKILL; Windows: the job's termination status).
  static int killed_exit_code();
  CliResult wait();

 private:
  TempDir capture_;
  long long pid_ = -1;
  void* process_ = nullptr;  // Windows: the process and job handles
  void* job_ = nullptr;
  bool waited_ = false;
};

// Polls until `pred` holds or `seconds` pass.
bool wait_until(const std::function<bool()>& pred, double seconds = 20);

}  // namespace winml::test

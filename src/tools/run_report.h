// `winml-make run`: its options, and the report it prints whichever runtime
// ran the model (winml-make's, run_command.cpp; ONNX Runtime, run_in_ort.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "runtime/tensor.h"

namespace winml::tools {

struct RunOptions {
  std::string model;
  std::vector<std::string> inputs, dims;
  bool ones = false, random = false, json = false, profile = false;
  std::uint64_t seed = 0;
  int threads = 0, repeat = 0;
  std::string output_dir;
  // --runtime ort: the model in ONNX Runtime, as an application loads it.
  std::string runtime = "winml";
  std::string ort_library, ep, ep_library, device;
  std::vector<std::string> provider_options;
};

// What a run produced, whichever runtime ran it.
struct RunResult {
  std::vector<std::pair<std::string, runtime::Tensor>> outputs;  // in the model's order
  double first_ms = 0;
  std::vector<double> times;
  nlohmann::json header = nlohmann::json::object();  // threads, isa or runtime and EP
  nlohmann::json profile;                            // --profile: per op type and slowest nodes
};

// "NAME=VALUE" -> {NAME, VALUE}; InputError naming the flag otherwise.
std::pair<std::string, std::string> split_assignment(const std::string& s, const char* what);

// Writes --output-dir, prints the outputs' statistics and timings (text or
// --json). Returns the exit code.
int print_run_report(const RunOptions& o, RunResult r);

// --runtime ort.
int run_in_ort(const RunOptions& o);

}  // namespace winml::tools

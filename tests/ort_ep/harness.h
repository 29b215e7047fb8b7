// The tests' handle on ort_harness (ort_harness.cpp): ONNX Runtime 1.29 or
// 1.30, with or without the plugin EP, in a process of its own.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/tensor_file.h"

namespace winml::test {

enum class OrtVersion { k1_29, k1_30 };
std::filesystem::path ort_library(OrtVersion v);
const char* ort_version_name(OrtVersion v);
std::filesystem::path ref_ep_library();  // libwinml_ref_ep.so of this build

struct HarnessOptions {
  OrtVersion ort = OrtVersion::k1_29;
  bool plugin = false;
  std::string opt_level = "disabled";
  std::string log_level = "warning";  // ORT's and the plugin's log, on stderr (HarnessResult::err)
  std::map<std::string, std::string> provider_options;
  std::map<std::string, std::int64_t> dims;
};

struct HarnessResult {
  int exit_code = -1;
  std::string err;
  std::vector<nlohmann::json> reports;  // one per action, after the version line
  std::string ort_version;
  std::vector<std::map<std::string, model::TensorFile>> runs;  // outputs of each --run, in order
  std::map<std::string, model::TensorFile> outputs;             // of the last --run
};

// A --run action writing its outputs under `dir` (numbered: several runs may share a parent).
std::vector<std::string> run_action(const std::filesystem::path& model, const std::filesystem::path& dir);

// Runs ort_harness with `args` (actions), feeding `inputs` (written as .npy
// files under a temporary directory).
HarnessResult run_harness(const HarnessOptions& o, const std::vector<std::string>& actions,
                          const std::map<std::string, model::TensorFile>& inputs = {});

// ORT's compile API with the plugin EP: `in` -> `out` (its blobs embedded or beside it).
HarnessResult compile_with_plugin(const std::filesystem::path& in, const std::filesystem::path& out, bool embed,
                                  const HarnessOptions& o = {});

// One session and run of `model`; outputs by name.
HarnessResult run_in(const std::filesystem::path& model, const HarnessOptions& o,
                     const std::map<std::string, model::TensorFile>& inputs = {});

// max |got - want| / (max(want) - min(want)) over float tensors of equal shape
// (the span; 1 when the reference is constant); infinity on a shape mismatch.
double span_relative_diff(const model::TensorFile& got, const model::TensorFile& want);

}  // namespace winml::test

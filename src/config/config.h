// The typed configuration of a project (winml.toml) and of each model.
// Every key, its default and its documentation are declared once, in the
// section's schema (sections/*.cpp); docs/configuration.md is generated from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/schema.h"

namespace winml::config {

struct BuildConfig {
  bool auto_discover = false;  // TOML key `auto`
  bool rebuild = false;
  std::string output_dir = "build";
  std::int64_t max_auto_iterations = 3;
  std::int64_t external_data_threshold_mib = 100;
  std::int64_t jobs = 0;
  bool keep_going = false;
  bool cache = true;
  std::string remote_cache;                        // URL of a shared HTTP cache (Bazel's protocol)
  std::int64_t remote_cache_transfer_timeout = 0;  // seconds per transfer; 0: no limit
};

// A model input (or calibration input) description.
struct InputTensorSpec {
  std::string name;
  std::string dtype = "float32";
  json shape = json::array();  // integers and dimension names
};

struct ModelConfig {
  std::string name;                          // the model's name; resolved from source/export when empty
  std::string source;                        // an existing .onnx to import
  std::map<std::string, std::int64_t> dims;  // values for symbolic dimensions
};

struct ExportConfig {
  std::vector<std::string> command;
  std::vector<std::string> inputs;
  std::vector<std::string> env;
  std::string torchvision;
  std::string weights;
  std::int64_t opset = 17;
  std::int64_t batch_size = 1;
  std::vector<InputTensorSpec> input_tensors;
  json dynamic_axes = json::object();
};

struct OptimizeConfig {
  bool enabled = true;
  std::string level = "basic";
  std::map<std::string, bool> passes;  // per-pass overrides of the level preset
};

struct QuantizeConfig {
  bool enabled = true;
  std::string mode = "qdq";
  std::string weight_type = "int8";
  std::string activation_type = "uint8";
  std::int64_t bits = 4;            // mode matmulnbits
  std::int64_t block_size = 32;     // mode matmulnbits, and 4-bit QDQ weights
  std::int64_t accuracy_level = 0;  // mode matmulnbits
  bool per_channel = false;
  std::optional<bool> symmetric;
  std::optional<bool> weight_symmetric;
  std::optional<bool> activation_symmetric;
  bool reduce_range = false;
  bool bias_correction = true;
  std::vector<std::string> op_types_to_quantize;
  std::vector<std::string> nodes_to_exclude;
  std::string calibration_method = "minmax";
  double percentile = 99.999;
  std::optional<std::int64_t> num_bins;
  std::optional<double> min_sqnr_db;    // the stage fails when an output's SQNR is lower
  bool allow_constant_outputs = false;  // min_sqnr_db passes outputs that never vary
  std::int64_t samples = 8;
  std::string calibration_data;
  std::string distribution = "uniform";
  std::vector<double> value_range = {0.0, 1.0};
  std::int64_t seed = 0;
  std::vector<InputTensorSpec> input_tensors;
  bool keep_io_types = true;
  std::vector<std::string> op_block_list;
  bool requantize = false;
};

struct CompileConfig {
  bool enabled = true;
  std::string ep = "cpu";
  std::string device;
  std::optional<std::string> backend;  // resolved from the EP and command when unset
  bool embed = false;
  bool validate = true;
  std::vector<std::string> command;
  std::vector<std::string> env;
  std::string ort_library;  // empty: the default ONNX Runtime (ort/library.h)
  std::string ep_library;   // a plugin EP's library; empty: an EP built into ORT
  std::map<std::string, std::string> provider_options;
  std::map<std::string, std::string> session_options;
};

// The compile backends ([compile] backend).
inline const std::vector<std::string> kCompileBackends = {"ort", "command", "ref", "prepare"};
// Empty, or why [compile] backend cannot compile for its EP.
std::string backend_problem(const CompileConfig& c);

// Everything one model is built with: project-wide sections merged
// with the model's own overrides, with computed defaults resolved.
struct ModelSettings {
  BuildConfig build;
  ModelConfig model;
  ExportConfig export_;
  OptimizeConfig optimize;
  QuantizeConfig quantize;
  CompileConfig compile;
  // Where this model's relative paths resolve (the project directory, or
  // the working directory of a subcommand), and the file it was read from
  // (for messages). Not keys: a stage reading a file there declares it, and
  // its content enters the key.
  std::filesystem::path base_dir;
  std::filesystem::path config_file;
  // Section ("optimize", "quantize", "compile") -> what switched it off: the
  // flag or -D ("--no-quant"), else "<file>:<line>", else "" (not a key
  // either; reports say it).
  std::map<std::string, std::string> disabled_by;
  // Key ("compile.ep_library") -> where its value was set, for messages: the
  // -D argument ("-D compile.ep_library=qnn.so"), else "<file>:<line>:<column>";
  // absent when it is the default. Held for the keys whose errors come after
  // loading (kKeysNamedBySource), not keys either.
  std::map<std::string, std::string> set_by;
};

// The keys ModelSettings::set_by records.
inline const std::vector<std::string> kKeysNamedBySource = {"compile.ep", "compile.device", "compile.ort_library",
                                                            "compile.ep_library", "export.weights"};

struct ProjectConfig {
  std::filesystem::path project_dir;  // relative paths in the config are resolved against it
  std::filesystem::path config_file;
  BuildConfig build;
  std::vector<ModelSettings> models;
};

// Schemas (one per section).
std::shared_ptr<const Section<BuildConfig>> build_schema();
std::shared_ptr<const Section<ModelConfig>> model_schema();
std::shared_ptr<const Section<ExportConfig>> export_schema();
std::shared_ptr<const Section<OptimizeConfig>> optimize_schema();
std::shared_ptr<const Section<QuantizeConfig>> quantize_schema();
// Empty, or why [quantize] value_range cannot be used with its distribution.
std::string value_range_problem(const QuantizeConfig& q);
std::shared_ptr<const Section<CompileConfig>> compile_schema();
std::shared_ptr<const Section<InputTensorSpec>> input_tensor_schema();

// Whether "section.key" is one whose value, left unset, the schema computes
// from other keys of its section (quantize.weight_symmetric from weight_type):
// when both change, the other one is what the user edited.
bool computed_from_other_keys(const std::string& dotted_key);

// JSON <-> typed, for each section.
json to_json(const ModelSettings& t);  // canonical: every key, sorted
json section_json(const ModelSettings& t, const std::string& section);

}  // namespace winml::config

// Model analysis for `winml-make analyze` and the build's analyze node:
// operator statistics, detected optimization patterns, and per-EP operator
// support from the tables in rules/ep/*.toml (analyze_result.json, schema in
// docs/analyze.md).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/model.h"

namespace winml::analyze {

struct AnalyzeOptions {
  std::vector<std::string> eps;                // EP tables to evaluate; empty: every table in rules/ep
  std::string device;                          // device_type reported; "": each EP's default device
  std::map<std::string, std::string> devices;  // per-EP device, overriding `device`
  // analysis_timestamp is left out when false, so build artifacts stay
  // byte-for-byte reproducible.
  bool timestamp = true;
  std::string model_path;  // reported as metadata.model_path; "": the model's own path
};

nlohmann::json analyze_model(const model::Model& m, const AnalyzeOptions& options = {});

// Optimization flags (pass name -> true) that the detected patterns call for
// and the target EP benefits from: a pattern counts only when the EP's table
// runs the op the pass would produce (e.g. LayerNormalization, Gemm,
// com.microsoft Gelu) and the model's opset allows the fusion.
std::map<std::string, bool> discover_flags(const nlohmann::json& analysis, const std::string& ep);

// A short human-readable summary of an analysis.
std::string format_analysis(const nlohmann::json& analysis);

}  // namespace winml::analyze

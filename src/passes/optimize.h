// The optimize stage as a library call: runs the passes a level preset and
// per-pass overrides select, over every graph, to a fixed point.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config.h"
#include "model/model.h"
#include "passes/pass.h"

namespace winml::passes {

struct OptimizeOptions {
  std::string level = "basic";         // a [levels] key of rules/optimize/presets.toml
  std::map<std::string, bool> passes;  // per-pass overrides of the level
  std::string ep;                      // rules/ep/<name>.toml; "" for none
  // Bound on rounds of the rewrite loop, which ends at a fixed point. Shapes
  // computed at run time (a window attention's padding, per block) become
  // known one link of their chain per round: a model of many such blocks
  // needs tens of rounds, each costing one pass over the graph.
  int max_rounds = 64;
  // Evaluates constant nodes for fold_constants; null: winml-make's runtime
  // (runtime_evaluator()).
  const ConstantEvaluator* evaluator = nullptr;

  static OptimizeOptions from_config(const config::OptimizeConfig& c, const std::string& ep = "");
};

struct OptimizeReport {
  std::vector<std::string> passes;                 // enabled passes, in pipeline order
  std::map<std::string, std::int64_t> rewrites;    // per pass, summed over all rounds
  std::map<std::string, double> seconds;           // per pass (not reproducible; kept out of to_json)
  std::int64_t nodes_before = 0, nodes_after = 0;  // all graphs
  std::int64_t initializers_before = 0, initializers_after = 0;
  int rounds = 0;           // rounds run, the last one making no rewrite unless the bound was hit
  bool fixed_point = true;  // false when max_rounds stopped the loop
  OpsetFacts opsets;
  std::vector<std::string> notes;

  nlohmann::json to_json(bool with_timings = false) const;
};

// The enabled passes (pipeline order) for a level and overrides. InputError on
// an unknown level or pass name.
std::vector<std::string> resolve_passes(const std::string& level, const std::map<std::string, bool>& overrides);

// Optimizes `model` in place. Refuses (InputError) a compiled EPContext model
// before doing anything. Graph outputs keep their names and order.
OptimizeReport optimize_model(model::Model& model, const OptimizeOptions& options);

// Throws the InputError the optimize stage gives for a compiled EPContext
// model ("... cannot be re-optimized ..."); does nothing for other models.
void refuse_compiled_model(const onnx::ModelProto& proto, const std::string& path);

// model::load_model for optimization: a compiled EPContext model is refused
// with the message above even when loading it fails first (e.g. a blob file
// of an EPContext node is missing).
model::Model load_model_to_optimize(const std::filesystem::path& path);

// Number of nodes in the model, subgraphs included.
std::int64_t count_nodes(const onnx::ModelProto& m);

}  // namespace winml::passes

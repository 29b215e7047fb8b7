// Every optimization pass, by its flag name, in pipeline order. The names are
// the keys of [passes] in rules/optimize/presets.toml (a test keeps the two
// identical); the one-line summaries live there.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "passes/pass.h"

namespace winml::passes {

struct PassInfo {
  std::string name;
  std::function<std::unique_ptr<Pass>()> make;
};

// Pipeline order: shape inference, constant folding, eliminations, fusions, cleanup.
const std::vector<PassInfo>& pass_registry();
const PassInfo* find_pass(std::string_view name);
std::vector<std::string> pass_names();

// The whole-model shape inference pass runs at the start of each round, not
// in the rewrite loop.
inline constexpr std::string_view kInferShapes = "infer_shapes";

}  // namespace winml::passes

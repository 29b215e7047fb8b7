// Why a key changed: the difference between the ingredients recorded with the
// old key and the current ones, one line per changed ingredient, e.g.
//
//   config quantize.calibration_method: "minmax" -> "entropy" (digest 5f0c...e1 -> 9a22...07)
//   input optimized.onnx: 3b8e...2d -> 71c4...a0
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/node.h"

namespace winml::graph {

// What the user edited comes first: a setting with a new value, then a file,
// then what appeared or went, then the tool's code; within each, the order of
// `new_ingredients` (a stage lists the settings a user writes before those
// computed from them, so weight_type comes before weight_symmetric).
// `old_ingredients` is nullopt when the old key's ingredients were never
// recorded (e.g. the log was deleted); the result then says only that.
std::vector<std::string> explain_change(const std::optional<std::vector<Ingredient>>& old_ingredients,
                                        const std::vector<Ingredient>& new_ingredients);

// A short form for one-line logs: "config quantize.samples changed" or
// "input optimized.onnx changed (+2 more)".
std::string summarize_change(const std::optional<std::vector<Ingredient>>& old_ingredients,
                             const std::vector<Ingredient>& new_ingredients);

// A dry run cannot know the outputs of the upstream stages it would rebuild:
// the change among the other ingredients (config, files, code), without the
// "input:" ones. Empty when nothing else changed or nothing is recorded.
std::vector<std::string> explain_change_besides_inputs(const std::optional<std::vector<Ingredient>>& old_ingredients,
                                                       const std::vector<Ingredient>& new_ingredients);
std::string summarize_change_besides_inputs(const std::optional<std::vector<Ingredient>>& old_ingredients,
                                            const std::vector<Ingredient>& new_ingredients);

// "config:quantize.samples" -> "config quantize.samples"; "input:x" -> "input x".
std::string describe_ingredient(const std::string& name);

}  // namespace winml::graph

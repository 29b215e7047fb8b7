// Node keys. A key is an XXH3-128 digest over named ingredients, sorted by
// name so that declaration order never matters:
//
//   static digest = H(config values, tool version, implementation version)
//   key           = H(static digest, input digests (upstream outputs with
//                     sidecars, declared extra inputs))
//
// Names are logical ("config:quantize.samples", "input:optimized.onnx",
// "file:calib/0/input.npy"), never absolute paths, and no mtime enters: a
// clone elsewhere, or on another machine, computes the same keys.
#pragma once

#include <vector>

#include "graph/node.h"

namespace winml::graph {

Digest static_digest_of(const std::vector<Ingredient>& statics);
Digest key_of(const Digest& static_digest, const std::vector<Ingredient>& dynamic);

// Helpers for building ingredients.
Ingredient text_ingredient(std::string name, std::string text);  // digest of the text
Ingredient digest_ingredient(std::string name, const Digest& d, std::string text = "");

void sort_ingredients(std::vector<Ingredient>& list);

}  // namespace winml::graph

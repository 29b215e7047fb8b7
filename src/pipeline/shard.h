// --shard I/N: the models of shard I (1-based) of N, chosen by a stable hash
// of each model's name, so a model stays in its shard whatever other models
// are added or removed, and every CI job of a matrix agrees without talking.
#pragma once

#include "graph/model_selection.h"

#include <set>
#include <string>
#include <vector>

namespace winml::pipeline {

struct Shard {
  unsigned index = 1, count = 1;  // 1 <= index <= count
  bool holds(const std::string& model) const;
};

// "2/4" -> {2, 4}; InputError otherwise.
Shard parse_shard(const std::string& text);
// The models of `all` that `selected` holds and `shard` draws (maybe none).
graph::ModelSelection models_in_shard(const Shard& shard, const std::vector<std::string>& all,
                                      const graph::ModelSelection& selected);

}  // namespace winml::pipeline

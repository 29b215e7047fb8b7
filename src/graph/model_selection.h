// The models a build or a command acts on: every model of the project, or
// the ones named (possibly none: a shard that drew no model).
#pragma once

#include <set>
#include <string>

namespace winml::graph {

class ModelSelection {
 public:
  ModelSelection() = default;  // every model
  static ModelSelection every_model() { return {}; }
  static ModelSelection only(std::set<std::string> names) {
    ModelSelection s;
    s.every_ = false;
    s.names_ = std::move(names);
    return s;
  }

  bool is_every_model() const { return every_; }
  // No model at all (never true for every_model()).
  bool is_none() const { return !every_ && names_.empty(); }
  bool contains(const std::string& model) const { return every_ || names_.count(model) > 0; }
  // The models named; empty for every_model().
  const std::set<std::string>& names() const { return names_; }

 private:
  bool every_ = true;
  std::set<std::string> names_;
};

}  // namespace winml::graph

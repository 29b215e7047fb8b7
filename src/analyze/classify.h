// Per-node evaluation of an EP table's constraints, and the per-EP result
// entry of analyze_result.json built from it.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ep/ep_table.h"
#include "passes/graph_view.h"

namespace winml::analyze {

// "OP/<domain>/<op>", the key analysis uses for operators.
std::string op_key(const std::string& domain, const std::string& op);

// Why node `i` of `v` does not meet `c` on `device` ("" when it does).
// `opset` is the model's opset for the node's domain.
std::string violation(const passes::GraphView& v, int i, const ep::OpConstraint& c, std::int64_t opset,
                      const std::string& device);

// Collects the nodes of a model for one EP, then renders its result entry.
class EpClassifier {
 public:
  EpClassifier(const ep::EpTable& table, std::string device)
      : table_(table), device_(device.empty() ? table.default_device : std::move(device)) {}
  void add(const passes::GraphView& v, int i, std::int64_t opset);
  // Model-level facts: graph inputs with dimensions that are not fixed.
  void set_dynamic_inputs(std::vector<std::string> names) { dynamic_inputs_ = std::move(names); }
  nlohmann::json result() const;

 private:
  struct OpUse {
    int nodes = 0;
    int violating = 0;
    std::map<std::string, std::vector<std::string>> reasons;  // reason -> node names
  };
  const ep::EpTable& table_;
  std::string device_;
  std::map<std::string, OpUse> ops_;                                  // by op key
  std::map<std::string, std::pair<std::string, std::string>> names_;  // op key -> (domain, op)
  std::vector<std::string> dynamic_inputs_;
};

}  // namespace winml::analyze

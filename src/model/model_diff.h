// What differs between two ONNX models: metadata, graph inputs and outputs,
// nodes and their attributes, initializers (how many elements, the largest
// absolute difference) and the EPContext blobs they reference. External
// data and blob files are read where they lie. The models are compared as
// they are: nothing is normalized, so two models that differ only in bytes
// no name covers still differ (`serialization`).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace winml::model {

struct Difference {
  std::string kind;    // metadata, input, output, node, attribute, initializer, blob, serialization
  std::string name;    // what differs: a key, tensor, node ("node 'conv1'"), attribute ("conv1.strides")
  std::string detail;  // how: "only in A", "int64[1,3] vs int64[1,4]", "3 of 864 elements differ, max |A-B| 0.0012"
};

// Every difference between a and b (the main graph and its subgraphs), in
// the order above; empty when they are the same.
std::vector<Difference> diff_models(const Model& a, const Model& b);

// "kind name: detail", one line each.
std::string format_differences(const std::vector<Difference>& d);
nlohmann::json differences_json(const std::vector<Difference>& d);

}  // namespace winml::model

// Graph edits of the quantizer: collision-free names, removing initializers
// and constant Identities. (Tensors and nodes are made with
// model/tensor_values.h and model/node_util.h.)
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/onnx.h"

namespace winml::quant {

// Hands out names not used by any value or node of a graph (subgraphs included).
class NameGen {
 public:
  explicit NameGen(const onnx::GraphProto& g);
  // `base` if free, else base_1, base_2, ...; the result is reserved.
  std::string unique(const std::string& base);
  bool used(const std::string& name) const { return used_.count(name) != 0; }

 private:
  std::set<std::string> used_;
};

// Removes initializers no node (in any graph) reads and that are not graph
// outputs; also drops them from graph inputs. Returns how many were removed.
std::size_t remove_unused_initializers(onnx::GraphProto& g, const std::set<std::string>& candidates);
// Removes Identity nodes of the main graph that only rename an initializer
// (exporters emit them for shared weights), pointing their readers at the
// initializer itself, so weights behind them are recognised as constants.
// Identities whose output is a graph output or read inside a subgraph stay.
std::size_t fold_constant_identities(onnx::GraphProto& g);

// Removes these initializers (and their graph input entries) unconditionally.
void remove_initializers(onnx::GraphProto& g, const std::set<std::string>& names);

}  // namespace winml::quant

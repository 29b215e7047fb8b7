// Small helpers for building graph pieces: collision-free names, constant
// tensors and nodes, reading float initializers.
#pragma once

#include <cstdint>
#include <set>
#include <span>
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

// The float32 values of an initializer (inline or external).
std::vector<float> read_floats(const model::Model& m, const onnx::TensorProto& t);

onnx::TensorProto make_tensor(const std::string& name, std::int32_t type, const std::vector<std::int64_t>& dims,
                              std::span<const std::byte> data);
onnx::TensorProto make_floats(const std::string& name, const std::vector<std::int64_t>& dims,
                              std::span<const float> values);
// A 0-d or 1-d tensor of integers stored as `type` (uint8 ... int32).
onnx::TensorProto make_ints(const std::string& name, std::int32_t type, const std::vector<std::int64_t>& dims,
                            std::span<const std::int32_t> values);

onnx::NodeProto make_node(const std::string& op, const std::string& name, std::vector<std::string> inputs,
                          std::vector<std::string> outputs, const std::string& domain = "");
void set_int_attr(onnx::NodeProto& n, const std::string& name, std::int64_t v);
void set_float_attr(onnx::NodeProto& n, const std::string& name, float v);

// Adds `domain` at `version` to the model's opset imports if it is missing.
void ensure_opset(onnx::ModelProto& m, const std::string& domain, std::int64_t version);

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

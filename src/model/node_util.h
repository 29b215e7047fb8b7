// Reading and writing node attributes, recognising ops and making nodes: the
// one set the passes, the quantizer and compile share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/onnx.h"

namespace winml::model {

// True for ops of the default ONNX domain ("" or "ai.onnx") named `op`.
bool is_op(const onnx::NodeProto& n, std::string_view op);
bool is_default_domain(std::string_view domain);
// True when an attribute of `n` holds a graph (If, Loop, Scan bodies).
bool has_subgraph(const onnx::NodeProto& n);

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, std::string_view name);
onnx::AttributeProto* find_attr(onnx::NodeProto& n, std::string_view name);
std::int64_t attr_int(const onnx::NodeProto& n, std::string_view name, std::int64_t fallback);
float attr_float(const onnx::NodeProto& n, std::string_view name, float fallback);
std::string attr_string(const onnx::NodeProto& n, std::string_view name, const std::string& fallback = "");
std::optional<std::vector<std::int64_t>> attr_ints(const onnx::NodeProto& n, std::string_view name);

// Set: an attribute of the same name is replaced where it stands (attribute
// order, and so the saved bytes, stay as they were); a new one is appended.
void set_attr_int(onnx::NodeProto& n, const std::string& name, std::int64_t v);
void set_attr_float(onnx::NodeProto& n, const std::string& name, float v);
void set_attr_string(onnx::NodeProto& n, const std::string& name, std::string v);
void set_attr_ints(onnx::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v);
void remove_attr(onnx::NodeProto& n, std::string_view name);

// Input `i`, or "" when absent (optional inputs may be missing or empty).
const std::string& input_or_empty(const onnx::NodeProto& n, int i);

// A fresh node; `name` and `domain` are set when not empty.
onnx::NodeProto make_node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = "",
                          const std::string& domain = "");

// Adds `domain` at `version` to the model's opset imports if it is missing.
void ensure_opset(onnx::ModelProto& m, const std::string& domain, std::int64_t version);

}  // namespace winml::model

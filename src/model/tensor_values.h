// Reading constant tensors as numbers and making new (inline) tensors, for
// passes that compute with weights. External data is read through the model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/onnx.h"

namespace winml::passes {

// The tensor a Constant node holds (value, value_float(s), value_int(s)); nullopt
// for string/sparse values.
std::optional<onnx::TensorProto> constant_node_tensor(const onnx::NodeProto& n);

// Elements as float (from float32, float64 or float16 tensors); nullopt for other types.
std::optional<std::vector<float>> read_floats(const model::Model& m, const onnx::TensorProto& t);
// Elements as int64 (from any integer or bool tensor); nullopt for other types.
std::optional<std::vector<std::int64_t>> read_ints(const model::Model& m, const onnx::TensorProto& t);
// The only element of a one-element numeric tensor, as double.
std::optional<double> read_scalar(const model::Model& m, const onnx::TensorProto& t);

onnx::TensorProto make_tensor(const std::string& name, std::int32_t data_type, const std::vector<std::int64_t>& dims,
                              const void* data, std::size_t bytes);
onnx::TensorProto make_floats(const std::string& name, const std::vector<std::int64_t>& dims,
                              const std::vector<float>& values);
onnx::TensorProto make_int64s(const std::string& name, const std::vector<std::int64_t>& dims,
                              const std::vector<std::int64_t>& values);

}  // namespace winml::passes

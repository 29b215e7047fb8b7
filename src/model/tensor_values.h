// Reading constant tensors as numbers and making new (inline) tensors: the
// one set the passes and the quantizer share. External data is read through
// the model.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/onnx.h"

namespace winml::model {

// The tensor a Constant node holds (value, value_float(s), value_int(s)); nullopt
// for string/sparse values.
std::optional<onnx::TensorProto> constant_node_tensor(const onnx::NodeProto& n);

// Elements as float (from float32, float64 or float16 tensors); nullopt for other types.
std::optional<std::vector<float>> read_floats(const Model& m, const onnx::TensorProto& t);
// The elements of a float32 tensor; BuildError naming the tensor for any
// other element type or a size that does not match its shape.
std::vector<float> float32_values(const Model& m, const onnx::TensorProto& t);
// Elements as int64 (from any integer or bool tensor); nullopt for other types.
std::optional<std::vector<std::int64_t>> read_ints(const Model& m, const onnx::TensorProto& t);
// The only element of a one-element numeric tensor, as double.
std::optional<double> read_scalar(const Model& m, const onnx::TensorProto& t);

onnx::TensorProto make_tensor(const std::string& name, std::int32_t data_type, const std::vector<std::int64_t>& dims,
                              std::span<const std::byte> data);
onnx::TensorProto make_floats(const std::string& name, const std::vector<std::int64_t>& dims,
                              const std::vector<float>& values);
onnx::TensorProto make_int64s(const std::string& name, const std::vector<std::int64_t>& dims,
                              const std::vector<std::int64_t>& values);
// A 0-d or 1-d tensor of integers stored as `type` (uint8 ... int32).
onnx::TensorProto make_ints(const std::string& name, std::int32_t type, const std::vector<std::int64_t>& dims,
                            std::span<const std::int32_t> values);

}  // namespace winml::model

// Element types and byte access for TensorProto, whatever field holds the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/onnx.h"

namespace winml::model {

// ONNX's 4-bit element types (IR 10), two to a byte: element i in byte i / 2,
// the low nibble for even i.
inline constexpr int32_t kUint4 = 21;
inline constexpr int32_t kInt4 = 22;
bool is_four_bit(int32_t data_type);

// Bytes per element, 0 for STRING/UNDEFINED (variable size) and for the
// 4-bit types (less than a byte: see storage_bytes).
std::size_t element_size(int32_t data_type);
// Whether elements of this type have a fixed size (whole bytes or 4 bits).
bool has_fixed_size(int32_t data_type);
// Bytes that `count` elements take, 4-bit types packed; 0 for variable sizes.
std::uint64_t storage_bytes(int32_t data_type, std::uint64_t count);
std::string data_type_name(int32_t data_type);  // "float32", "int64", ...
// ONNX enum from a name; 0 if unknown.
int32_t data_type_from_name(const std::string& name);
std::int64_t element_count(const onnx::TensorProto& t);
// Bytes of the tensor's payload (raw, typed fields or external length).
std::uint64_t payload_size(const onnx::TensorProto& t);
bool is_external(const onnx::TensorProto& t);

// The little-endian bytes of a tensor: a view into raw_data or a mapping, or
// an owned buffer converted from the typed fields (float_data, int32_data...).
struct TensorBytes {
  std::span<const std::byte> bytes;
  std::vector<std::byte> owned;  // backs `bytes` when converted
};

// Converts typed fields to raw little-endian bytes (for non-external tensors).
TensorBytes inline_tensor_bytes(const onnx::TensorProto& t);

}  // namespace winml::model

// Integer element types of quantized tensors and their representable ranges,
// with ONNX Runtime's conventions for reduced and symmetric ranges.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace winml::quant {

enum class QType { kUInt8, kInt8, kUInt16, kInt16, kUInt4, kInt4 };

// "uint8" | "int8" | "uint16" | "int16" | "uint4" | "int4"; BuildError
// otherwise (config validation has already rejected anything else).
QType parse_qtype(std::string_view name);
std::string qtype_name(QType t);
std::int32_t onnx_type(QType t);  // onnx::TensorProto::UINT8, ...
bool is_16bit(QType t);
bool is_4bit(QType t);  // packed two to a byte; DequantizeLinear takes them from opset 21
bool is_signed(QType t);
std::size_t qtype_size(QType t);  // bytes per element (1 for the 4-bit types, which pack two)

struct QRange {
  std::int32_t qmin = 0;
  std::int32_t qmax = 255;
};

// The integer range values are mapped to. `reduce_range` halves it (7-bit
// weights for CPUs without VNNI); `symmetric` drops the most negative value of
// signed types so the range is symmetric around zero (int8: [-127, 127],
// int4: [-7, 7]).
QRange qrange(QType t, bool reduce_range, bool symmetric);

}  // namespace winml::quant

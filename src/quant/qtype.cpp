#include "quant/qtype.h"

#include "base/error.h"
#include "model/onnx.h"
#include "model/tensor_data.h"

namespace winml::quant {

QType parse_qtype(std::string_view name) {
  if (name == "uint8") return QType::kUInt8;
  if (name == "int8") return QType::kInt8;
  if (name == "uint16") return QType::kUInt16;
  if (name == "int16") return QType::kInt16;
  if (name == "uint4") return QType::kUInt4;
  if (name == "int4") return QType::kInt4;
  throw BuildError("unknown quantized type '" + std::string(name) +
                   "' (expected uint8, int8, uint16, int16, uint4 or int4)");
}

std::string qtype_name(QType t) {
  switch (t) {
    case QType::kUInt8: return "uint8";
    case QType::kInt8: return "int8";
    case QType::kUInt16: return "uint16";
    case QType::kInt16: return "int16";
    case QType::kUInt4: return "uint4";
    case QType::kInt4: return "int4";
  }
  return "?";
}

std::int32_t onnx_type(QType t) {
  switch (t) {
    case QType::kUInt8: return onnx::TensorProto::UINT8;
    case QType::kInt8: return onnx::TensorProto::INT8;
    case QType::kUInt16: return onnx::TensorProto::UINT16;
    case QType::kInt16: return onnx::TensorProto::INT16;
    case QType::kUInt4: return model::kUint4;
    case QType::kInt4: return model::kInt4;
  }
  return 0;
}

bool is_16bit(QType t) { return t == QType::kUInt16 || t == QType::kInt16; }
bool is_4bit(QType t) { return t == QType::kUInt4 || t == QType::kInt4; }
bool is_signed(QType t) { return t == QType::kInt8 || t == QType::kInt16 || t == QType::kInt4; }
std::size_t qtype_size(QType t) { return is_16bit(t) ? 2 : 1; }

QRange qrange(QType t, bool reduce_range, bool symmetric) {
  // Reduced ranges as ONNX Runtime defines them (int8: [-64, 64], one value
  // wider than 7 bits on the positive side, kept for compatibility).
  if (reduce_range) {
    switch (t) {
      case QType::kUInt8: return {0, 127};
      case QType::kInt8: return {-64, 64};
      case QType::kUInt16: return {0, 32767};
      case QType::kInt16: return {-16384, 16384};
      case QType::kUInt4: return {0, 7};
      case QType::kInt4: return {-4, 4};
    }
  }
  switch (t) {
    case QType::kUInt8: return {0, 255};
    case QType::kInt8: return symmetric ? QRange{-127, 127} : QRange{-128, 127};
    case QType::kUInt16: return {0, 65535};
    case QType::kInt16: return symmetric ? QRange{-32767, 32767} : QRange{-32768, 32767};
    case QType::kUInt4: return {0, 15};
    case QType::kInt4: return symmetric ? QRange{-7, 7} : QRange{-8, 7};
  }
  return {};
}

}  // namespace winml::quant

#include "runtime/convert.h"

#include <cmath>
#include <cstring>

#include "base/half.h"
#include "runtime/dispatch.h"

namespace winml::runtime {

void unsupported_type(DataType t, const char* what) {
  throw UnsupportedError("element type " + dtype_name(t) + " is not supported here (expected " + what + ")");
}

bool is_half(DataType t) { return t == onnx::TensorProto::FLOAT16 || t == onnx::TensorProto::BFLOAT16; }

namespace {

bool is_plain(DataType t) {
  switch (t) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::BOOL: return true;
    default: return false;
  }
}

template <typename To, typename From>
To cast_value(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // NaN and out-of-range values are undefined in C++; pin them so results
    // are reproducible (ONNX leaves them unspecified).
    if (std::isnan(v)) return To(0);
    if (v <= static_cast<From>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

template <typename From>
void convert_from(const From* src, Tensor& dst) {
  std::int64_t n = dst.size();
  dispatch_all(dst.dtype(), [&]<typename To>() {
    To* out = dst.mutable_data<To>();
    for (std::int64_t i = 0; i < n; ++i) out[i] = cast_value<To>(src[i]);
  });
}

}  // namespace

bool can_convert(DataType from, DataType to) {
  return (is_plain(from) || is_half(from)) && (is_plain(to) || is_half(to));
}

Tensor convert(const Tensor& src, DataType to) {
  if (src.dtype() == to) return src;
  if (!can_convert(src.dtype(), to))
    throw UnsupportedError("cannot convert " + dtype_name(src.dtype()) + " to " + dtype_name(to));
  std::int64_t n = src.size();
  if (is_half(src.dtype())) {
    Tensor f = Tensor::allocate(onnx::TensorProto::FLOAT, src.shape());
    const auto* h = src.data<std::uint16_t>();
    float* out = f.mutable_data<float>();
    bool bf = src.dtype() == onnx::TensorProto::BFLOAT16;
    for (std::int64_t i = 0; i < n; ++i) out[i] = bf ? bfloat16_to_float(h[i]) : half_to_float(h[i]);
    return convert(f, to);
  }
  if (is_half(to)) {
    Tensor f = convert(src, onnx::TensorProto::FLOAT);
    Tensor r = Tensor::allocate(to, src.shape());
    const float* in = f.data<float>();
    auto* out = r.mutable_data<std::uint16_t>();
    bool bf = to == onnx::TensorProto::BFLOAT16;
    for (std::int64_t i = 0; i < n; ++i) out[i] = bf ? float_to_bfloat16(in[i]) : float_to_half(in[i]);
    return r;
  }
  Tensor r = Tensor::allocate(to, src.shape());
  dispatch_all(src.dtype(), [&]<typename From>() { convert_from(src.data<From>(), r); });
  return r;
}

}  // namespace winml::runtime

// Element type dispatch for kernels: calls f.template operator()<T>() with
// the C++ type of an ONNX element type, for a chosen family of types.
//
//   dispatch_numeric(t, [&]<typename T>() { ... });
#pragma once

#include <cstdint>

#include "runtime/errors.h"
#include "runtime/tensor.h"

namespace winml::runtime {

template <typename T>
struct DTypeOf;
#define WINML_DTYPE_OF(T, V)                                \
  template <>                                               \
  struct DTypeOf<T> {                                       \
    static constexpr DataType value = onnx::TensorProto::V; \
  };
WINML_DTYPE_OF(float, FLOAT)
WINML_DTYPE_OF(double, DOUBLE)
WINML_DTYPE_OF(std::int8_t, INT8)
WINML_DTYPE_OF(std::uint8_t, UINT8)
WINML_DTYPE_OF(std::int16_t, INT16)
WINML_DTYPE_OF(std::uint16_t, UINT16)
WINML_DTYPE_OF(std::int32_t, INT32)
WINML_DTYPE_OF(std::uint32_t, UINT32)
WINML_DTYPE_OF(std::int64_t, INT64)
WINML_DTYPE_OF(std::uint64_t, UINT64)
WINML_DTYPE_OF(bool, BOOL)
#undef WINML_DTYPE_OF
template <typename T>
inline constexpr DataType dtype_of = DTypeOf<T>::value;

[[noreturn]] void unsupported_type(DataType t, const char* what);

#define WINML_CASE(V, T) \
  case onnx::TensorProto::V: return f.template operator()<T>();

// float, double
template <typename F>
decltype(auto) dispatch_float(DataType t, F&& f) {
  switch (t) {
    WINML_CASE(FLOAT, float)
    WINML_CASE(DOUBLE, double)
    default: unsupported_type(t, "floating point");
  }
}

// Signed and unsigned integers.
template <typename F>
decltype(auto) dispatch_integer(DataType t, F&& f) {
  switch (t) {
    WINML_CASE(INT8, std::int8_t)
    WINML_CASE(UINT8, std::uint8_t)
    WINML_CASE(INT16, std::int16_t)
    WINML_CASE(UINT16, std::uint16_t)
    WINML_CASE(INT32, std::int32_t)
    WINML_CASE(UINT32, std::uint32_t)
    WINML_CASE(INT64, std::int64_t)
    WINML_CASE(UINT64, std::uint64_t)
    default: unsupported_type(t, "integer");
  }
}

// Floating point and integer types.
template <typename F>
decltype(auto) dispatch_numeric(DataType t, F&& f) {
  switch (t) {
    WINML_CASE(FLOAT, float)
    WINML_CASE(DOUBLE, double)
    WINML_CASE(INT8, std::int8_t)
    WINML_CASE(UINT8, std::uint8_t)
    WINML_CASE(INT16, std::int16_t)
    WINML_CASE(UINT16, std::uint16_t)
    WINML_CASE(INT32, std::int32_t)
    WINML_CASE(UINT32, std::uint32_t)
    WINML_CASE(INT64, std::int64_t)
    WINML_CASE(UINT64, std::uint64_t)
    default: unsupported_type(t, "numeric");
  }
}

// Numeric types and bool.
template <typename F>
decltype(auto) dispatch_all(DataType t, F&& f) {
  if (t == onnx::TensorProto::BOOL) return f.template operator()<bool>();
  return dispatch_numeric(t, std::forward<F>(f));
}

// Signed types used by ops like Neg/Abs/Sign (plus unsigned, where they are identity-like).
#undef WINML_CASE

// By element size only, for ops that move bytes without looking at them.
template <typename F>
decltype(auto) dispatch_by_size(DataType t, F&& f) {
  switch (dtype_size(t)) {
    case 1: return f.template operator()<std::uint8_t>();
    case 2: return f.template operator()<std::uint16_t>();
    case 4: return f.template operator()<std::uint32_t>();
    case 8: return f.template operator()<std::uint64_t>();
    default: unsupported_type(t, "fixed-size");
  }
}

}  // namespace winml::runtime

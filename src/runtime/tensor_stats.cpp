#include "runtime/tensor_stats.h"

#include <cmath>
#include <limits>
#include <random>

#include "runtime/convert.h"
#include "runtime/dispatch.h"

namespace winml::runtime {

TensorStats tensor_stats(const Tensor& input) {
  Tensor t = input;
  if (t.dtype() == onnx::TensorProto::FLOAT16 || t.dtype() == onnx::TensorProto::BFLOAT16)
    t = convert(t, onnx::TensorProto::FLOAT);
  TensorStats s;
  s.count = t.size();
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  std::int64_t finite = 0;
  dispatch_all(t.dtype(), [&]<typename T>() {
    const T* p = t.data<T>();
    for (std::int64_t i = 0; i < t.size(); ++i) {
      double v = static_cast<double>(p[i]);
      if (std::isnan(v)) {
        ++s.nan;
      } else if (std::isinf(v)) {
        ++s.inf;
      } else {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
        ++finite;
      }
    }
  });
  if (finite) {
    s.min = lo;
    s.max = hi;
    s.mean = sum / static_cast<double>(finite);
  }
  return s;
}

Tensor filled_tensor(DataType dtype, const Shape& shape, Fill fill, std::uint64_t seed) {
  bool half = dtype == onnx::TensorProto::FLOAT16 || dtype == onnx::TensorProto::BFLOAT16;
  DataType work = half ? onnx::TensorProto::FLOAT : dtype;
  Tensor t = Tensor::allocate(work, shape);
  std::mt19937_64 rng(seed);
  dispatch_all(work, [&]<typename T>() {
    T* p = t.mutable_data<T>();
    for (std::int64_t i = 0; i < t.size(); ++i) {
      if (fill == Fill::kOnes) {
        p[i] = T(1);
      } else if constexpr (std::is_same_v<T, bool>) {
        p[i] = (rng() & 1) != 0;
      } else if constexpr (std::is_floating_point_v<T>) {
        p[i] = static_cast<T>(std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
      } else {
        p[i] = static_cast<T>(rng() % 10);
      }
    }
  });
  return half ? convert(t, dtype) : t;
}

}  // namespace winml::runtime

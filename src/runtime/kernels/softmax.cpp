// Softmax, LogSoftmax and Hardmax. Before opset 13 the input is coerced to
// 2-D at `axis` and normalized over the flattened tail; from 13 on, over the
// one axis.
#include <cmath>
#include <limits>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"
#include "runtime/scratch.h"
#include "runtime/vector_math.h"

namespace winml::runtime::kernels {

namespace {

enum class Mode { kSoftmax, kLogSoftmax, kHardmax };

template <Mode M>
class Softmax : public Kernel {
 public:
  explicit Softmax(const NodeContext& n)
      : legacy_(n.opset() < 13), axis_(n.attr_int("axis", n.opset() < 13 ? 1 : -1)) {}

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int axis = normalize_axis(axis_, std::max(x.rank(), 1));
    std::int64_t outer, len, inner;
    if (legacy_) {
      outer = dims_product(x.shape(), 0, axis);
      len = dims_product(x.shape(), axis, x.rank());
      inner = 1;
    } else {
      outer = dims_product(x.shape(), 0, axis);
      len = x.rank() ? x.dim(axis) : 1;
      inner = dims_product(x.shape(), axis + 1, x.rank());
    }
    dispatch_float(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = ctx.allocate_output(0, x.dtype(), x.shape()).template mutable_data<T>();
      std::int64_t lines = outer * inner;
      std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(len, 1));
      if constexpr (std::is_same_v<T, float>) {
        if (inner == 1 && M != Mode::kHardmax) {
          parallel_ranges(ctx.pool(), lines, grain, [&](std::int64_t l0, std::int64_t l1) {
            contiguous_rows(px + l0 * len, py + l0 * len, l1 - l0, len);
          });
          return;
        }
      }
      parallel_ranges(ctx.pool(), lines, grain, [&](std::int64_t l0, std::int64_t l1) {
        for (std::int64_t l = l0; l < l1; ++l) {
          std::int64_t o = l / inner, i = l % inner;
          line<T>(px + o * len * inner + i, py + o * len * inner + i, len, inner);
        }
      });
    });
  }

 private:
  template <typename T>
  static void line(const T* x, T* y, std::int64_t len, std::int64_t stride) {
    T max = -std::numeric_limits<T>::infinity();
    std::int64_t arg = 0;
    for (std::int64_t k = 0; k < len; ++k)
      if (x[k * stride] > max) {
        max = x[k * stride];
        arg = k;
      }
    if constexpr (M == Mode::kHardmax) {
      for (std::int64_t k = 0; k < len; ++k) y[k * stride] = k == arg ? T(1) : T(0);
    } else {
      T sum = 0;
      for (std::int64_t k = 0; k < len; ++k) {
        T e = std::exp(x[k * stride] - max);
        if constexpr (M == Mode::kSoftmax) y[k * stride] = e;
        sum += e;
      }
      if constexpr (M == Mode::kSoftmax) {
        T inv = T(1) / sum;
        for (std::int64_t k = 0; k < len; ++k) y[k * stride] *= inv;
      } else {
        T log_sum = std::log(sum);
        for (std::int64_t k = 0; k < len; ++k) y[k * stride] = x[k * stride] - max - log_sum;
      }
    }
  }

  // float32 rows: each row's maximum subtracted, one vectorized exp over
  // all the rows, then per-row 8-lane double sums.
  static void contiguous_rows(const float* x, float* y, std::int64_t rows, std::int64_t len) {
    for (std::int64_t r = 0; r < rows; ++r) {
      float max = vmath::max(x + r * len, len);
      for (std::int64_t k = 0; k < len; ++k) y[r * len + k] = x[r * len + k] - max;
    }
    if constexpr (M == Mode::kSoftmax) {
      vmath::exp(y, y, rows * len);
      for (std::int64_t r = 0; r < rows; ++r) {
        float* row = y + r * len;
        float inv = static_cast<float>(1.0 / vmath::sum(row, len));
        for (std::int64_t k = 0; k < len; ++k) row[k] *= inv;
      }
    } else {
      Scratch e(sizeof(float) * static_cast<std::size_t>(rows * len));
      vmath::exp(y, e.as<float>(), rows * len);
      for (std::int64_t r = 0; r < rows; ++r) {
        float log_sum = static_cast<float>(std::log(vmath::sum(e.as<float>() + r * len, len)));
        for (std::int64_t k = 0; k < len; ++k) y[r * len + k] -= log_sum;
      }
    }
  }

  bool legacy_;
  std::int64_t axis_;
};

}  // namespace

void register_softmax(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "Softmax", 1, top, make<Softmax<Mode::kSoftmax>>(), kFloatCompute);
  add(r, "LogSoftmax", 1, top, make<Softmax<Mode::kLogSoftmax>>(), kFloatCompute);
  add(r, "Hardmax", 1, top, make<Softmax<Mode::kHardmax>>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels

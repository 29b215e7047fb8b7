// TopK, CumSum, Trilu, ReverseSequence.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

// Largest (or smallest) k along an axis; ties keep the lower index first.
class TopK : public Kernel {
 public:
  explicit TopK(const NodeContext& n)
      : axis_(n.attr_int("axis", -1)),
        largest_(n.attr_int("largest", 1) != 0),
        sorted_(n.attr_int("sorted", 1) != 0),
        k_attr_(n.opset() < 10 ? n.required_int("k") : -1) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::int64_t k = k_attr_ >= 0 ? k_attr_ : to_int64s(ctx.input(1)).at(0);
    int axis = normalize_axis(axis_, x.rank());
    std::int64_t len = x.dim(axis);
    if (k < 0 || k > len)
      throw InputError("k = " + std::to_string(k) + " is out of range for an axis of " + std::to_string(len));
    Shape out = x.shape();
    out[axis] = k;
    std::int64_t outer = dims_product(x.shape(), 0, axis), inner = dims_product(x.shape(), axis + 1, x.rank());
    dispatch_numeric(x.dtype(), [&]<typename T>() {
      T* pv = ctx.allocate_output(0, x.dtype(), out).template mutable_data<T>();
      std::int64_t* pi = ctx.allocate_output(1, onnx::TensorProto::INT64, out).mutable_data<std::int64_t>();
      const T* px = x.data<T>();
      std::vector<std::int64_t> order(static_cast<std::size_t>(len));
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          const T* line = px + o * len * inner + i;
          std::iota(order.begin(), order.end(), 0);
          auto better = [&](std::int64_t a, std::int64_t b) {
            T va = line[a * inner], vb = line[b * inner];
            if (va != vb) return largest_ ? va > vb : va < vb;
            return a < b;
          };
          std::partial_sort(order.begin(), order.begin() + k, order.end(), better);
          (void)sorted_;  // results are always returned sorted
          for (std::int64_t j = 0; j < k; ++j) {
            std::int64_t dst = (o * k + j) * inner + i;
            pv[dst] = line[order[j] * inner];
            pi[dst] = order[j];
          }
        }
    });
  }

 private:
  std::int64_t axis_;
  bool largest_, sorted_;
  std::int64_t k_attr_;
};

class CumSum : public Kernel {
 public:
  explicit CumSum(const NodeContext& n)
      : exclusive_(n.attr_int("exclusive", 0) != 0), reverse_(n.attr_int("reverse", 0) != 0) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int axis = normalize_axis(static_cast<std::int64_t>(scalar_value(ctx.input(1))), x.rank());
    std::int64_t len = x.dim(axis);
    std::int64_t outer = dims_product(x.shape(), 0, axis), inner = dims_product(x.shape(), axis + 1, x.rank());
    dispatch_numeric(x.dtype(), [&]<typename T>() {
      T* py = ctx.allocate_output(0, x.dtype(), x.shape()).template mutable_data<T>();
      const T* px = x.data<T>();
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          T acc = T(0);
          for (std::int64_t s = 0; s < len; ++s) {
            std::int64_t j = reverse_ ? len - 1 - s : s;
            std::int64_t idx = (o * len + j) * inner + i;
            if (exclusive_) {
              py[idx] = acc;
              acc = static_cast<T>(acc + px[idx]);
            } else {
              acc = static_cast<T>(acc + px[idx]);
              py[idx] = acc;
            }
          }
        }
    });
  }

 private:
  bool exclusive_, reverse_;
};

class Trilu : public Kernel {
 public:
  explicit Trilu(const NodeContext& n) : upper_(n.attr_int("upper", 1) != 0) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) throw InputError("Trilu needs rank >= 2");
    std::int64_t k = ctx.has_input(1) ? to_int64s(ctx.input(1)).at(0) : 0;
    std::int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1),
                 mats = x.size() / std::max<std::int64_t>(rows * cols, 1);
    dispatch_all(x.dtype(), [&]<typename T>() {
      T* py = ctx.allocate_output(0, x.dtype(), x.shape()).template mutable_data<T>();
      const T* px = x.data<T>();
      for (std::int64_t m = 0; m < mats; ++m)
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t c = 0; c < cols; ++c) {
            std::int64_t i = (m * rows + r) * cols + c;
            bool keep = upper_ ? c - r >= k : c - r <= k;
            py[i] = keep ? px[i] : T(0);
          }
    });
  }

 private:
  bool upper_;
};

class ReverseSequence : public Kernel {
 public:
  explicit ReverseSequence(const NodeContext& n)
      : batch_axis_(n.attr_int("batch_axis", 1)), time_axis_(n.attr_int("time_axis", 0)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    auto lens = to_int64s(ctx.input(1));
    int b = normalize_axis(batch_axis_, x.rank()), t = normalize_axis(time_axis_, x.rank());
    auto st = strides_of(x.shape());
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    std::size_t es = dtype_size(x.dtype());
    std::vector<std::int64_t> idx(x.rank(), 0);
    for (std::int64_t i = 0; i < x.size(); ++i) {
      std::int64_t src = i;
      std::int64_t len = lens.at(idx[b]);
      if (idx[t] < len) src += (len - 1 - 2 * idx[t]) * st[t];
      std::memcpy(y.mutable_raw() + i * es, x.raw() + src * es, es);
      for (int d = x.rank() - 1; d >= 0; --d) {
        if (++idx[d] < x.dim(d)) break;
        idx[d] = 0;
      }
    }
  }

 private:
  std::int64_t batch_axis_, time_axis_;
};

}  // namespace

void register_misc(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "TopK", 1, top, make<TopK>(), kFloatCompute);
  add(r, "CumSum", 11, top, make<CumSum>(), kFloatCompute);
  add(r, "Trilu", 14, top, make<Trilu>());
  add(r, "ReverseSequence", 10, top, make<ReverseSequence>());
}

}  // namespace winml::runtime::kernels

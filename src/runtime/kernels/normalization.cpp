// BatchNormalization (inference and training statistics), LayerNormalization,
// InstanceNormalization, MeanVarianceNormalization, LRN, LpNormalization.
// Statistics accumulate in double, in index order.
#include <cmath>
#include <map>
#include <set>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"
#include "runtime/vector_math.h"

namespace winml::runtime::kernels {

namespace {

void require_float(const Tensor& t) {
  if (t.dtype() != onnx::TensorProto::FLOAT && t.dtype() != onnx::TensorProto::DOUBLE)
    unsupported_type(t.dtype(), "float32 or float64");
}

class BatchNormalization : public Kernel {
 public:
  explicit BatchNormalization(const NodeContext& n)
      : epsilon_(n.attr_float("epsilon", 1e-5f)),
        momentum_(n.attr_float("momentum", 0.9f)),
        training_(n.opset() >= 14 && n.attr_int("training_mode", 0) != 0) {
    if (n.opset() < 6 && n.attr_int("is_test", 0) == 0 && n.output_count() > 1)
      n.unsupported("BatchNormalization in training mode before opset 6");
    if (n.opset() >= 6 && n.opset() < 9 && n.attr_int("spatial", 1) == 0)
      n.unsupported("BatchNormalization with spatial=0");
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    require_float(x);
    dispatch_float(x.dtype(), [&]<typename T>() { compute<T>(ctx, x); });
  }

 private:
  template <typename T>
  void compute(KernelContext& ctx, const Tensor& x) const {
    if (x.rank() < 2) throw InputError("BatchNormalization needs rank >= 2");
    std::int64_t N = x.dim(0), C = x.dim(1), S = dims_product(x.shape(), 2, x.rank());
    const T* scale = ctx.input(1).data<T>();
    const T* bias = ctx.input(2).data<T>();
    const T* mean_in = ctx.input(3).data<T>();
    const T* var_in = ctx.input(4).data<T>();
    const T* px = x.data<T>();
    std::vector<double> mean(static_cast<std::size_t>(C)), var(static_cast<std::size_t>(C));
    if (training_) {
      for (std::int64_t c = 0; c < C; ++c) {
        double s = 0;
        for (std::int64_t n = 0; n < N; ++n)
          for (std::int64_t i = 0; i < S; ++i) s += px[(n * C + c) * S + i];
        double m = s / static_cast<double>(N * S), q = 0;
        for (std::int64_t n = 0; n < N; ++n)
          for (std::int64_t i = 0; i < S; ++i) {
            double d = px[(n * C + c) * S + i] - m;
            q += d * d;
          }
        mean[c] = m;
        var[c] = q / static_cast<double>(N * S);
      }
      if (ctx.output_count() > 1 && ctx.output_wanted(1)) {
        T* rm = ctx.allocate_output(1, x.dtype(), {C}).template mutable_data<T>();
        for (std::int64_t c = 0; c < C; ++c) rm[c] = static_cast<T>(mean_in[c] * momentum_ + mean[c] * (1 - momentum_));
      }
      if (ctx.output_count() > 2 && ctx.output_wanted(2)) {
        T* rv = ctx.allocate_output(2, x.dtype(), {C}).template mutable_data<T>();
        for (std::int64_t c = 0; c < C; ++c) rv[c] = static_cast<T>(var_in[c] * momentum_ + var[c] * (1 - momentum_));
      }
    } else {
      for (std::int64_t c = 0; c < C; ++c) {
        mean[c] = mean_in[c];
        var[c] = var_in[c];
      }
    }
    // y = x * a + b per channel.
    std::vector<T> a(static_cast<std::size_t>(C)), b(static_cast<std::size_t>(C));
    for (std::int64_t c = 0; c < C; ++c) {
      double inv = 1.0 / std::sqrt(var[c] + static_cast<double>(epsilon_));
      a[c] = static_cast<T>(scale[c] * inv);
      b[c] = static_cast<T>(bias[c] - mean[c] * scale[c] * inv);
    }
    T* py = ctx.allocate_output(0, x.dtype(), x.shape()).template mutable_data<T>();
    parallel_ranges(ctx.pool(), N * C, std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(S, 1)),
                    [&](std::int64_t p0, std::int64_t p1) {
                      for (std::int64_t p = p0; p < p1; ++p) {
                        T av = a[p % C], bv = b[p % C];
                        for (std::int64_t i = 0; i < S; ++i) py[p * S + i] = px[p * S + i] * av + bv;
                      }
                    });
  }

  float epsilon_, momentum_;
  bool training_;
};

// Rows of `width` normalized to zero mean, unit variance, then scaled.
class LayerNormalization : public Kernel {
 public:
  explicit LayerNormalization(const NodeContext& n)
      : axis_(n.attr_int("axis", -1)), epsilon_(n.attr_float("epsilon", 1e-5f)) {}

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    require_float(x);
    dispatch_float(x.dtype(), [&]<typename T>() { compute<T>(ctx, x); });
  }

 private:
  template <typename T>
  void compute(KernelContext& ctx, const Tensor& x) const {
    int axis = normalize_axis(axis_, x.rank());
    std::int64_t rows = dims_product(x.shape(), 0, axis), width = dims_product(x.shape(), axis, x.rank());
    const Tensor& scale = ctx.input(1);
    const Tensor* bias = ctx.optional_input(2);
    if (scale.size() != width && scale.size() != 1)
      throw InputError("Scale has " + std::to_string(scale.size()) + " elements for rows of " + std::to_string(width));
    if (bias && bias->size() != width && bias->size() != 1) throw InputError("B does not match the normalized shape");
    const T* ps = scale.data<T>();
    const T* pb = bias ? bias->data<T>() : nullptr;
    std::int64_t ss = scale.size() == 1 ? 0 : 1, bs = bias && bias->size() == 1 ? 0 : 1;
    const T* px = x.data<T>();
    T* py = ctx.allocate_output(0, x.dtype(), x.shape()).template mutable_data<T>();
    Shape stat_shape(x.shape().begin(), x.shape().begin() + axis);
    stat_shape.resize(x.shape().size(), 1);
    float* mean_out = nullptr;
    float* inv_out = nullptr;
    if (ctx.output_count() > 1 && ctx.output_wanted(1))
      mean_out = ctx.allocate_output(1, onnx::TensorProto::FLOAT, stat_shape).mutable_data<float>();
    if (ctx.output_count() > 2 && ctx.output_wanted(2))
      inv_out = ctx.allocate_output(2, onnx::TensorProto::FLOAT, stat_shape).mutable_data<float>();
    parallel_ranges(ctx.pool(), rows, std::max<std::int64_t>(1, 8192 / std::max<std::int64_t>(width, 1)),
                    [&](std::int64_t r0, std::int64_t r1) {
                      for (std::int64_t r = r0; r < r1; ++r) {
                        const T* row = px + r * width;
                        double mean, sq;
                        if constexpr (std::is_same_v<T, float>) {
                          mean = vmath::sum(row, width) / static_cast<double>(width);
                          sq = vmath::sum_squared_deviations(row, width, mean);
                        } else {
                          double sum = 0;
                          for (std::int64_t i = 0; i < width; ++i) sum += row[i];
                          mean = sum / static_cast<double>(width);
                          sq = 0;
                          for (std::int64_t i = 0; i < width; ++i) sq += (row[i] - mean) * (row[i] - mean);
                        }
                        double inv = 1.0 / std::sqrt(sq / static_cast<double>(width) + epsilon_);
                        T* out = py + r * width;
                        for (std::int64_t i = 0; i < width; ++i) {
                          double v = (row[i] - mean) * inv * ps[i * ss];
                          if (pb) v += pb[i * bs];
                          out[i] = static_cast<T>(v);
                        }
                        if (mean_out) mean_out[r] = static_cast<float>(mean);
                        if (inv_out) inv_out[r] = static_cast<float>(inv);
                      }
                    });
  }

  std::int64_t axis_;
  float epsilon_;
};

class InstanceNormalization : public Kernel {
 public:
  explicit InstanceNormalization(const NodeContext& n) : epsilon_(n.attr_float("epsilon", 1e-5f)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    require_float(x);
    dispatch_float(x.dtype(), [&]<typename T>() {
      std::int64_t C = x.dim(1), S = dims_product(x.shape(), 2, x.rank());
      const T* scale = ctx.input(1).data<T>();
      const T* bias = ctx.input(2).data<T>();
      const T* px = x.data<T>();
      T* py = ctx.allocate_output(0, x.dtype(), x.shape()).template mutable_data<T>();
      parallel_ranges(ctx.pool(), x.dim(0) * C, 1, [&](std::int64_t p0, std::int64_t p1) {
        for (std::int64_t p = p0; p < p1; ++p) {
          const T* v = px + p * S;
          double sum = 0, sq = 0;
          for (std::int64_t i = 0; i < S; ++i) sum += v[i];
          double mean = sum / static_cast<double>(S);
          for (std::int64_t i = 0; i < S; ++i) sq += (v[i] - mean) * (v[i] - mean);
          double inv = 1.0 / std::sqrt(sq / static_cast<double>(S) + epsilon_);
          double a = scale[p % C] * inv, b = bias[p % C];
          for (std::int64_t i = 0; i < S; ++i) py[p * S + i] = static_cast<T>((v[i] - mean) * a + b);
        }
      });
    });
  }

 private:
  float epsilon_;
};

// (x - mean) / sqrt(variance) over `axes` (default N, H, W).
class MeanVarianceNormalization : public Kernel {
 public:
  explicit MeanVarianceNormalization(const NodeContext& n) : axes_(n.attr_ints("axes", {0, 2, 3})) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    require_float(x);
    std::set<int> axes;
    for (auto a : axes_) axes.insert(normalize_axis(a, x.rank()));
    auto strides = strides_of(x.shape());
    // Groups: indices agreeing on every non-reduced axis.
    dispatch_float(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = ctx.allocate_output(0, x.dtype(), x.shape()).template mutable_data<T>();
      std::int64_t n = x.size();
      std::vector<std::int64_t> key(static_cast<std::size_t>(n));
      std::map<std::int64_t, std::pair<double, std::int64_t>> sums;
      for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t k = 0;
        for (int d = 0; d < x.rank(); ++d)
          if (!axes.count(d)) k = k * x.dim(d) + (i / strides[d]) % x.dim(d);
        key[i] = k;
        auto& s = sums[k];
        s.first += px[i];
        ++s.second;
      }
      std::map<std::int64_t, double> var;
      for (std::int64_t i = 0; i < n; ++i) {
        auto& s = sums[key[i]];
        double d = px[i] - s.first / static_cast<double>(s.second);
        var[key[i]] += d * d;
      }
      for (std::int64_t i = 0; i < n; ++i) {
        auto& s = sums[key[i]];
        double mean = s.first / static_cast<double>(s.second);
        double sd = std::sqrt(var[key[i]] / static_cast<double>(s.second));
        py[i] = static_cast<T>((px[i] - mean) / (sd + 1e-9));
      }
    });
  }

 private:
  std::vector<std::int64_t> axes_;
};

class LRN : public Kernel {
 public:
  explicit LRN(const NodeContext& n)
      : alpha_(n.attr_float("alpha", 1e-4f)),
        beta_(n.attr_float("beta", 0.75f)),
        bias_(n.attr_float("bias", 1.0f)),
        size_(n.required_int("size")) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    require_float(x);
    dispatch_float(x.dtype(), [&]<typename T>() {
      std::int64_t N = x.dim(0), C = x.dim(1), S = dims_product(x.shape(), 2, x.rank());
      const T* px = x.data<T>();
      T* py = ctx.allocate_output(0, x.dtype(), x.shape()).template mutable_data<T>();
      std::int64_t before = (size_ - 1) / 2, after = size_ - 1 - before;
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t c = 0; c < C; ++c)
          for (std::int64_t i = 0; i < S; ++i) {
            double sq = 0;
            for (std::int64_t k = std::max<std::int64_t>(0, c - before); k <= std::min(C - 1, c + after); ++k) {
              double v = px[(n * C + k) * S + i];
              sq += v * v;
            }
            double denom = std::pow(bias_ + alpha_ / static_cast<double>(size_) * sq, beta_);
            py[(n * C + c) * S + i] = static_cast<T>(px[(n * C + c) * S + i] / denom);
          }
    });
  }

 private:
  float alpha_, beta_, bias_;
  std::int64_t size_;
};

class LpNormalization : public Kernel {
 public:
  explicit LpNormalization(const NodeContext& n) : axis_(n.attr_int("axis", -1)), p_(n.attr_int("p", 2)) {
    if (p_ != 1 && p_ != 2) n.fail("p must be 1 or 2");
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    require_float(x);
    int axis = normalize_axis(axis_, x.rank());
    std::int64_t outer = dims_product(x.shape(), 0, axis), len = x.dim(axis),
                 inner = dims_product(x.shape(), axis + 1, x.rank());
    dispatch_float(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = ctx.allocate_output(0, x.dtype(), x.shape()).template mutable_data<T>();
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          double norm = 0;
          for (std::int64_t k = 0; k < len; ++k) {
            double v = px[(o * len + k) * inner + i];
            norm += p_ == 1 ? std::fabs(v) : v * v;
          }
          if (p_ == 2) norm = std::sqrt(norm);
          for (std::int64_t k = 0; k < len; ++k) {
            std::int64_t idx = (o * len + k) * inner + i;
            py[idx] = static_cast<T>(norm == 0 ? 0.0 : px[idx] / norm);
          }
        }
    });
  }

 private:
  std::int64_t axis_, p_;
};

}  // namespace

void register_normalization(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "BatchNormalization", 6, top, make<BatchNormalization>(), kFloatCompute);
  add(r, "LayerNormalization", 17, top, make<LayerNormalization>(), kFloatCompute);
  add(r, "InstanceNormalization", 6, top, make<InstanceNormalization>(), kFloatCompute);
  add(r, "MeanVarianceNormalization", 9, top, make<MeanVarianceNormalization>(), kFloatCompute);
  add(r, "LRN", 1, top, make<LRN>(), kFloatCompute);
  add(r, "LpNormalization", 1, top, make<LpNormalization>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels

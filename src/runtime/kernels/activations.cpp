// Activation functions: Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid,
// HardSwish, Clip, Elu, Selu, Celu, Softplus, Softsign, ThresholdedRelu,
// Gelu (ONNX opset 20 and com.microsoft), Mish, Shrink.
#include <cmath>
#include <limits>

#include "runtime/kernels/register.h"
#include "runtime/kernels/unary.h"
#include "runtime/vector_math.h"

namespace winml::runtime::kernels {

namespace {

struct ReluOp {
  explicit ReluOp(const NodeContext&) {}
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) return x;
    else return x < T(0) ? T(0) : x;
  }
};
struct SigmoidOp {
  explicit SigmoidOp(const NodeContext&) {}
  template <typename T>
  T operator()(T x) const {
    // Stable for large |x|: exp() only of non-positive numbers.
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    T e = std::exp(x);
    return e / (T(1) + e);
  }
};
struct TanhOp {
  explicit TanhOp(const NodeContext&) {}
  template <typename T>
  T operator()(T x) const {
    return std::tanh(x);
  }
};
struct LeakyReluOp {
  float alpha;
  explicit LeakyReluOp(const NodeContext& n) : alpha(n.attr_float("alpha", 0.01f)) {}
  template <typename T>
  T operator()(T x) const {
    return x < T(0) ? T(alpha) * x : x;
  }
};
struct HardSigmoidOp {
  float alpha, beta;
  explicit HardSigmoidOp(const NodeContext& n) : alpha(n.attr_float("alpha", 0.2f)), beta(n.attr_float("beta", 0.5f)) {}
  template <typename T>
  T operator()(T x) const {
    return std::max(T(0), std::min(T(1), T(alpha) * x + T(beta)));
  }
};
struct HardSwishOp {
  explicit HardSwishOp(const NodeContext&) {}
  template <typename T>
  T operator()(T x) const {
    return x * std::max(T(0), std::min(T(1), x / T(6) + T(0.5)));
  }
};
struct EluOp {
  float alpha;
  explicit EluOp(const NodeContext& n) : alpha(n.attr_float("alpha", 1.0f)) {}
  template <typename T>
  T operator()(T x) const {
    return x < T(0) ? T(alpha) * (std::exp(x) - T(1)) : x;
  }
};
struct SeluOp {
  float alpha, gamma;
  explicit SeluOp(const NodeContext& n)
      : alpha(n.attr_float("alpha", 1.67326319217681884765625f)),
        gamma(n.attr_float("gamma", 1.05070102214813232421875f)) {}
  template <typename T>
  T operator()(T x) const {
    return x <= T(0) ? T(gamma) * (T(alpha) * std::exp(x) - T(alpha)) : T(gamma) * x;
  }
};
struct CeluOp {
  float alpha;
  explicit CeluOp(const NodeContext& n) : alpha(n.attr_float("alpha", 1.0f)) {}
  template <typename T>
  T operator()(T x) const {
    return std::max(T(0), x) + std::min(T(0), T(alpha) * (std::exp(x / T(alpha)) - T(1)));
  }
};
struct SoftplusOp {
  explicit SoftplusOp(const NodeContext&) {}
  template <typename T>
  T operator()(T x) const {
    return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};
struct SoftsignOp {
  explicit SoftsignOp(const NodeContext&) {}
  template <typename T>
  T operator()(T x) const {
    return x / (T(1) + std::fabs(x));
  }
};
struct ThresholdedReluOp {
  float alpha;
  explicit ThresholdedReluOp(const NodeContext& n) : alpha(n.attr_float("alpha", 1.0f)) {}
  template <typename T>
  T operator()(T x) const {
    return x > T(alpha) ? x : T(0);
  }
};
struct MishOp {
  explicit MishOp(const NodeContext&) {}
  template <typename T>
  T operator()(T x) const {
    T sp = x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    return x * std::tanh(sp);
  }
};
struct GeluOp {
  bool tanh_approx;
  explicit GeluOp(const NodeContext& n) {
    std::string a = n.attr_string("approximate", "none");
    if (a != "none" && a != "tanh") n.fail("approximate must be 'none' or 'tanh'");
    tanh_approx = a == "tanh";
  }
  template <typename T>
  T operator()(T x) const {
    if (tanh_approx) {
      const T k = T(0.7978845608028654);  // sqrt(2/pi)
      return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
    }
    return T(0.5) * x * (T(1) + std::erf(x * T(0.7071067811865476)));
  }
};
struct ShrinkOp {
  float bias, lambd;
  explicit ShrinkOp(const NodeContext& n) : bias(n.attr_float("bias", 0.0f)), lambd(n.attr_float("lambd", 0.5f)) {}
  template <typename T>
  T operator()(T x) const {
    if (static_cast<double>(x) < -lambd) return static_cast<T>(static_cast<double>(x) + bias);
    if (static_cast<double>(x) > lambd) return static_cast<T>(static_cast<double>(x) - bias);
    return T(0);
  }
};

// Gelu: the erf form in float32 through vector_math; the tanh form and
// float64 per element.
class Gelu : public Kernel {
 public:
  explicit Gelu(const NodeContext& n) : op_(n) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    if (x.dtype() == onnx::TensorProto::FLOAT && !op_.tanh_approx) {
      const float* px = x.data<float>();
      float* py = y.mutable_data<float>();
      parallel_ranges(ctx.pool(), x.size(), kElementwiseGrain,
                      [&](std::int64_t b, std::int64_t e) { vmath::gelu(px + b, py + b, e - b); });
      return;
    }
    dispatch_float(x.dtype(), [&]<typename T>() {
      const GeluOp& op = op_;
      unary_loop<T, T>(x, y, ctx.pool(), [&op](T v) { return op(v); });
    });
  }

 private:
  GeluOp op_;
};

// Clip: bounds are attributes before opset 11, optional inputs from 11 on.
class Clip : public Kernel {
 public:
  explicit Clip(const NodeContext& n) : attr_bounds_(n.opset() < 11) {
    min_ = n.attr_float("min", -std::numeric_limits<float>::infinity());
    max_ = n.attr_float("max", std::numeric_limits<float>::infinity());
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    dispatch_numeric(x.dtype(), [&]<typename T>() {
      T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
      if constexpr (std::is_floating_point_v<T>) {
        lo = -std::numeric_limits<T>::infinity();
        hi = std::numeric_limits<T>::infinity();
      }
      if (attr_bounds_) {
        lo = static_cast<T>(min_);
        hi = static_cast<T>(max_);
      } else {
        if (const Tensor* t = ctx.optional_input(1)) lo = t->data<T>()[0];
        if (const Tensor* t = ctx.optional_input(2)) hi = t->data<T>()[0];
      }
      Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
      unary_loop<T, T>(x, y, ctx.pool(), [lo, hi](T v) { return v < lo ? lo : (v > hi ? hi : v); });
    });
  }

 private:
  bool attr_bounds_;
  float min_, max_;
};

}  // namespace

void register_activations(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "Relu", 6, top, make<Unary<ReluOp, Family::kNumeric>>(), kFloatComputeInPlace);
  add(r, "LeakyRelu", 6, top, make<Unary<LeakyReluOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Sigmoid", 6, top, make<VectorUnary<SigmoidOp, vmath::sigmoid>>(), kFloatComputeInPlace);
  add(r, "Tanh", 6, top, make<Unary<TanhOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "HardSigmoid", 6, top, make<Unary<HardSigmoidOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "HardSwish", 14, top, make<Unary<HardSwishOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Elu", 6, top, make<Unary<EluOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Selu", 6, top, make<Unary<SeluOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Celu", 12, top, make<Unary<CeluOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Softplus", 1, top, make<Unary<SoftplusOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Softsign", 1, top, make<Unary<SoftsignOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "ThresholdedRelu", 10, top, make<Unary<ThresholdedReluOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Mish", 18, top, make<Unary<MishOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Gelu", 20, top, make<Gelu>(), kFloatCompute);
  add(r, "Gelu", 1, 1, make<Gelu>(), kFloatCompute, "com.microsoft");
  add(r, "Shrink", 9, top, make<Unary<ShrinkOp, Family::kNumeric>>(), kFloatComputeInPlace);
  add(r, "Clip", 6, top, make<Clip>(), kFloatComputeInPlace);  // (its bounds are read before output 0 is written)
}

}  // namespace winml::runtime::kernels

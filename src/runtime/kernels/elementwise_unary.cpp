// Unary math: Abs, Neg, Sign, Sqrt, Exp, Log, Erf, Reciprocal, rounding,
// trigonometric functions, Not, IsNaN, IsInf.
#include <cmath>
#include <type_traits>

#include "runtime/kernels/register.h"
#include "runtime/kernels/unary.h"
#include "runtime/vector_math.h"

namespace winml::runtime::kernels {

namespace {

#define WINML_FLOAT_FN(NAME, EXPR)       \
  struct NAME {                          \
    explicit NAME(const NodeContext&) {} \
    template <typename T>                \
    T operator()(T x) const {            \
      return EXPR;                       \
    }                                    \
  };
WINML_FLOAT_FN(SqrtOp, std::sqrt(x))
WINML_FLOAT_FN(ExpOp, std::exp(x))
WINML_FLOAT_FN(LogOp, std::log(x))
WINML_FLOAT_FN(ErfOp, std::erf(x))
WINML_FLOAT_FN(ReciprocalOp, T(1) / x)
WINML_FLOAT_FN(FloorOp, std::floor(x))
WINML_FLOAT_FN(CeilOp, std::ceil(x))
WINML_FLOAT_FN(RoundOp, std::nearbyint(x))  // ties to even under the default rounding mode
WINML_FLOAT_FN(SinOp, std::sin(x))
WINML_FLOAT_FN(CosOp, std::cos(x))
WINML_FLOAT_FN(TanOp, std::tan(x))
WINML_FLOAT_FN(AsinOp, std::asin(x))
WINML_FLOAT_FN(AcosOp, std::acos(x))
WINML_FLOAT_FN(AtanOp, std::atan(x))
WINML_FLOAT_FN(SinhOp, std::sinh(x))
WINML_FLOAT_FN(CoshOp, std::cosh(x))
WINML_FLOAT_FN(AsinhOp, std::asinh(x))
WINML_FLOAT_FN(AcoshOp, std::acosh(x))
WINML_FLOAT_FN(AtanhOp, std::atanh(x))
#undef WINML_FLOAT_FN

// -x, wrapping around for integers (the minimum stays the minimum).
template <typename T>
T negate(T x) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(Wrapping<T>(0) - Wrapping<T>(x));
  else return -x;
}

struct AbsOp {
  explicit AbsOp(const NodeContext&) {}
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) return x;
    else if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
    else return x < 0 ? negate(x) : x;
  }
};
struct NegOp {
  explicit NegOp(const NodeContext&) {}
  template <typename T>
  T operator()(T x) const {
    return negate(x);
  }
};
struct SignOp {
  explicit SignOp(const NodeContext&) {}
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(x)) return x;
    if constexpr (std::is_unsigned_v<T>) return x > T(0) ? T(1) : T(0);
    else return x > T(0) ? T(1) : (x < T(0) ? static_cast<T>(-1) : T(0));
  }
};

class Not : public Kernel {
 public:
  explicit Not(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != onnx::TensorProto::BOOL) throw InputError("Not takes a bool input");
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    unary_loop<bool, bool>(x, y, ctx.pool(), [](bool v) { return !v; });
  }
};

class IsNaN : public Kernel {
 public:
  explicit IsNaN(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::BOOL, x.shape());
    dispatch_float(x.dtype(),
                   [&]<typename T>() { unary_loop<T, bool>(x, y, ctx.pool(), [](T v) { return std::isnan(v); }); });
  }
};

class IsInf : public Kernel {
 public:
  explicit IsInf(const NodeContext& n)
      : negative_(n.attr_int("detect_negative", 1) != 0), positive_(n.attr_int("detect_positive", 1) != 0) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::BOOL, x.shape());
    bool neg = negative_, pos = positive_;
    dispatch_float(x.dtype(), [&]<typename T>() {
      unary_loop<T, bool>(x, y, ctx.pool(), [neg, pos](T v) { return std::isinf(v) && (v > 0 ? pos : neg); });
    });
  }

 private:
  bool negative_, positive_;
};

}  // namespace

void register_elementwise_unary(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "Sqrt", 6, top, make<Unary<SqrtOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Exp", 6, top, make<Unary<ExpOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Log", 6, top, make<Unary<LogOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Erf", 9, top, make<VectorUnary<ErfOp, vmath::erf>>(), kFloatComputeInPlace);
  add(r, "Reciprocal", 6, top, make<Unary<ReciprocalOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Floor", 6, top, make<Unary<FloorOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Ceil", 6, top, make<Unary<CeilOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Round", 11, top, make<Unary<RoundOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Sin", 7, top, make<Unary<SinOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Cos", 7, top, make<Unary<CosOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Tan", 7, top, make<Unary<TanOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Asin", 7, top, make<Unary<AsinOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Acos", 7, top, make<Unary<AcosOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Atan", 7, top, make<Unary<AtanOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Sinh", 9, top, make<Unary<SinhOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Cosh", 9, top, make<Unary<CoshOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Asinh", 9, top, make<Unary<AsinhOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Acosh", 9, top, make<Unary<AcoshOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Atanh", 9, top, make<Unary<AtanhOp, Family::kFloat>>(), kFloatComputeInPlace);
  add(r, "Abs", 6, top, make<Unary<AbsOp, Family::kNumeric>>(), kFloatComputeInPlace);
  add(r, "Neg", 6, top, make<Unary<NegOp, Family::kNumeric>>(), kFloatComputeInPlace);
  add(r, "Sign", 9, top, make<Unary<SignOp, Family::kNumeric>>(), kFloatComputeInPlace);
  add(r, "Not", 1, top, make<Not>());
  add(r, "IsNaN", 9, top, make<IsNaN>(), kFloatCompute);
  add(r, "IsInf", 10, top, make<IsInf>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels

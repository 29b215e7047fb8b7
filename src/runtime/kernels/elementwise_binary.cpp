// Binary and variadic element-wise ops with numpy broadcasting: arithmetic,
// comparison, logic, Pow, Mod, BitShift, PRelu, Min/Max/Sum/Mean, Where.
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/convert.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

template <typename T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;

// Integers narrower than 32 bits, and uint32, are rare in models: their ops
// run on inputs widened to int32 or uint64 and narrow the results back.
// Wraparound, division (MIN / -1 included), remainders, Min/Max and
// comparisons give the same values that way, and this file compiles every
// loop for five numeric types instead of ten (it was the slowest file to
// build). Signed widen to int32 (int16 products fit), unsigned to uint64
// (uint16 products do not fit int32).
DataType computed_type(DataType t) {
  using T = onnx::TensorProto;
  switch (t) {
    case T::INT8:
    case T::INT16: return T::INT32;
    case T::UINT8:
    case T::UINT16:
    case T::UINT32: return T::UINT64;
    default: return t;
  }
}

// The numeric types computed_type() leaves as they are.
template <typename F>
decltype(auto) dispatch_computed(DataType t, F&& f) {
  using T = onnx::TensorProto;
  switch (t) {
    case T::FLOAT: return f.template operator()<float>();
    case T::DOUBLE: return f.template operator()<double>();
    case T::INT32: return f.template operator()<std::int32_t>();
    case T::INT64: return f.template operator()<std::int64_t>();
    case T::UINT64: return f.template operator()<std::uint64_t>();
    default: unsupported_type(t, "numeric");
  }
}

// Output 0 = body<T>(a, b, y) with a, b and y of `a`'s numeric type, run in
// its computed type.
template <typename Body>
void run_numeric(KernelContext& ctx, const Tensor& a, const Tensor& b, const Shape& shape, Body&& body) {
  const DataType t = a.dtype(), w = computed_type(t);
  if (w == t) {
    dispatch_computed(t, [&]<typename T>() { body.template operator()<T>(a, b, ctx.allocate_output(0, t, shape)); });
    return;
  }
  const Tensor wa = convert(a, w), wb = convert(b, w);
  Tensor wy = Tensor::allocate(w, shape);
  dispatch_computed(w, [&]<typename T>() { body.template operator()<T>(wa, wb, wy); });
  ctx.set_output(0, convert(wy, t));
}

// Integers wrap around, computed in Wrapping<T>.
struct AddOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(Wrapping<T>(a) + Wrapping<T>(b));
    else return static_cast<T>(a + b);
  }
};
struct SubOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(Wrapping<T>(a) - Wrapping<T>(b));
    else return static_cast<T>(a - b);
  }
};
struct MulOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(Wrapping<T>(a) * Wrapping<T>(b));
    else return static_cast<T>(a * b);
  }
};
struct DivOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (kIsFloat<T>) {
      return a / b;
    } else {
      // Integer division by zero (and MIN / -1) traps on x86; ONNX leaves
      // them undefined, here they give 0 and MIN.
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<T>)
        if (b == T(-1)) return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(a));
      return static_cast<T>(a / b);
    }
  }
};
struct MaxOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (kIsFloat<T>)
      if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
    return a < b ? b : a;
  }
};
struct MinOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (kIsFloat<T>)
      if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
    return b < a ? b : a;
  }
};

// Kernels for a binary op whose inputs and output share one type.
template <typename Op, int Family>  // Family: 0 numeric, 1 float
class SameTypeBinary : public Kernel {
 public:
  explicit SameTypeBinary(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype())
      throw InputError("input types differ: " + dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()));
    Shape shape = broadcast_shapes(a.shape(), b.shape());
    if (ctx.relu_output()) {  // (folded only where the output is float32)
      if (a.dtype() != onnx::TensorProto::FLOAT) unsupported_type(a.dtype(), "float32 with a folded Relu");
      binary_loop<float, float, float>(a, b, ctx.allocate_output(0, a.dtype(), shape), ctx.pool(),
                                       [](float x, float z) { return relu(Op{}(x, z)); });
      return;
    }
    auto body = [&]<typename T>(const Tensor& x, const Tensor& z, Tensor& y) {
      binary_loop<T, T, T>(x, z, y, ctx.pool(), Op{});
    };
    if constexpr (Family == 0) {
      run_numeric(ctx, a, b, shape, body);
    } else {
      dispatch_float(a.dtype(), [&]<typename T>() {
        body.template operator()<T>(a, b, ctx.allocate_output(0, dtype_of<T>, shape));
      });
    }
  }
};

// Sum, Mean, Min, Max over any number of inputs, folded left to right.
template <typename Op, bool kMean>
class Variadic : public Kernel {
 public:
  explicit Variadic(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    int n = ctx.input_count();
    const Tensor& first = ctx.input(0);
    const DataType t = first.dtype(), w = kMean ? t : computed_type(t);
    auto body = [&]<typename T>() {
      if (n == 1) {
        Tensor y = first.clone();
        ctx.set_output(0, std::move(y));
        return;
      }
      Tensor acc = convert(first, w);
      for (int i = 1; i < n; ++i) {
        if (ctx.input(i).dtype() != t) throw InputError("input types differ");
        const Tensor b = convert(ctx.input(i), w);
        Shape shape = broadcast_shapes(acc.shape(), b.shape());
        Tensor next = i + 1 == n && !kMean && w == t ? ctx.allocate_output(0, w, shape) : Tensor::allocate(w, shape);
        binary_loop<T, T, T>(acc, b, next, ctx.pool(), Op{});
        acc = std::move(next);
      }
      if constexpr (kMean) {
        Tensor& y = ctx.allocate_output(0, dtype_of<T>, acc.shape());
        const T count = static_cast<T>(n);
        unary_loop<T, T>(acc, y, ctx.pool(), [count](T v) { return static_cast<T>(v / count); });
      } else if (w != t) {
        ctx.set_output(0, convert(acc, t));
      }
    };
    if constexpr (kMean) dispatch_float(t, body);
    else dispatch_computed(w, body);
  }
};

// Comparisons: numeric (and bool for Equal) in, bool out. Greater and
// LessOrEqual are Less and GreaterOrEqual on swapped inputs (the same
// results, NaN included), so their loops are not compiled twice.
template <typename Op, bool kAllowBool, bool kSwapInputs = false>
class Compare : public Kernel {
 public:
  explicit Compare(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(kSwapInputs ? 1 : 0);
    const Tensor& b = ctx.input(kSwapInputs ? 0 : 1);
    if (a.dtype() != b.dtype()) throw InputError("input types differ");
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::BOOL, broadcast_shapes(a.shape(), b.shape()));
    if (kAllowBool && a.dtype() == onnx::TensorProto::BOOL) {
      binary_loop<bool, bool, bool>(a, b, y, ctx.pool(), Op{});
      return;
    }
    const DataType w = computed_type(a.dtype());
    const Tensor wa = convert(a, w), wb = convert(b, w);
    dispatch_computed(w, [&]<typename T>() { binary_loop<T, T, bool>(wa, wb, y, ctx.pool(), Op{}); });
  }
};
struct EqualOp {
  template <typename T>
  bool operator()(T a, T b) const {
    return a == b;
  }
};
struct LessOp {
  template <typename T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};
struct GreaterEqualOp {
  template <typename T>
  bool operator()(T a, T b) const {
    return a >= b;
  }
};

template <typename Op>
class Logic : public Kernel {
 public:
  explicit Logic(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != onnx::TensorProto::BOOL || b.dtype() != onnx::TensorProto::BOOL)
      throw InputError("logic ops take bool inputs");
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::BOOL, broadcast_shapes(a.shape(), b.shape()));
    binary_loop<bool, bool, bool>(a, b, y, ctx.pool(), Op{});
  }
};
struct AndOp {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct OrOp {
  bool operator()(bool a, bool b) const { return a || b; }
};
struct XorOp {
  bool operator()(bool a, bool b) const { return a != b; }
};

class Pow : public Kernel {
 public:
  explicit Pow(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    Shape shape = broadcast_shapes(a.shape(), b.shape());
    if (a.dtype() == onnx::TensorProto::FLOAT || a.dtype() == onnx::TensorProto::DOUBLE) {
      Tensor e = convert(b, a.dtype());
      dispatch_float(a.dtype(), [&]<typename T>() {
        Tensor& y = ctx.allocate_output(0, a.dtype(), shape);
        if (e.size() == 1 && e.data<T>()[0] == T(2)) {
          unary_loop<T, T>(a, y, ctx.pool(), [](T x) { return x * x; });
        } else if (e.size() == 1 && e.data<T>()[0] == T(0.5)) {
          unary_loop<T, T>(a, y, ctx.pool(), [](T x) { return std::sqrt(x); });
        } else {
          binary_loop<T, T, T>(a, e, y, ctx.pool(), [](T x, T p) { return std::pow(x, p); });
        }
      });
      return;
    }
    // Integer bases: computed in double, truncated back.
    Tensor x = convert(a, onnx::TensorProto::DOUBLE);
    Tensor p = convert(b, onnx::TensorProto::DOUBLE);
    Tensor r = Tensor::allocate(onnx::TensorProto::DOUBLE, shape);
    binary_loop<double, double, double>(x, p, r, ctx.pool(), [](double u, double v) { return std::pow(u, v); });
    ctx.set_output(0, convert(r, a.dtype()));
  }
};

// Divisors every remainder by is 0 (by 0: undefined in ONNX, 0 here). Not
// computed: MIN % -1 traps on x86, as MIN / -1 does.
template <typename T>
bool remainder_is_zero(T d) {
  if constexpr (std::is_signed_v<T>) return d == 0 || d == T(-1);
  else return d == 0;
}

class Mod : public Kernel {
 public:
  explicit Mod(const NodeContext& n) : fmod_(n.attr_int("fmod", 0) != 0) {}
  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) throw InputError("input types differ");
    Shape shape = broadcast_shapes(a.shape(), b.shape());
    run_numeric(ctx, a, b, shape, [&]<typename T>(const Tensor& dividends, const Tensor& divisors, Tensor& y) {
      if constexpr (kIsFloat<T>) {
        if (!fmod_) throw InputError("Mod on floating point inputs requires fmod=1");
        binary_loop<T, T, T>(dividends, divisors, y, ctx.pool(), [](T x, T d) { return std::fmod(x, d); });
      } else if (fmod_) {
        binary_loop<T, T, T>(dividends, divisors, y, ctx.pool(),
                             [](T x, T d) { return remainder_is_zero(d) ? T(0) : static_cast<T>(x % d); });
      } else {
        // Python semantics: the result takes the divisor's sign.
        binary_loop<T, T, T>(dividends, divisors, y, ctx.pool(), [](T x, T d) {
          if (remainder_is_zero(d)) return T(0);
          T r = static_cast<T>(x % d);
          if constexpr (std::is_signed_v<T>)
            if (r != 0 && ((r < 0) != (d < 0))) r = static_cast<T>(r + d);
          return r;
        });
      }
    });
  }

 private:
  bool fmod_;
};

class BitShift : public Kernel {
 public:
  explicit BitShift(const NodeContext& n) {
    std::string d = n.attr_string("direction", "");
    if (d != "LEFT" && d != "RIGHT") n.fail("direction must be LEFT or RIGHT");
    left_ = d == "LEFT";
  }
  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) throw InputError("input types differ");
    Shape shape = broadcast_shapes(a.shape(), b.shape());
    dispatch_integer(a.dtype(), [&]<typename T>() {
      if constexpr (std::is_signed_v<T>) {
        throw InputError("BitShift takes unsigned integers");
      } else {
        Tensor& y = ctx.allocate_output(0, a.dtype(), shape);
        bool left = left_;
        binary_loop<T, T, T>(a, b, y, ctx.pool(), [left](T x, T s) {
          if (s >= sizeof(T) * 8) return T(0);
          return static_cast<T>(left ? x << s : x >> s);
        });
      }
    });
  }

 private:
  bool left_ = true;
};

class PRelu : public Kernel {
 public:
  explicit PRelu(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& slope = ctx.input(1);
    if (x.dtype() != slope.dtype()) throw InputError("input types differ");
    Shape shape = broadcast_shapes(x.shape(), slope.shape());
    run_numeric(ctx, x, slope, shape, [&]<typename T>(const Tensor& values, const Tensor& slopes, Tensor& y) {
      binary_loop<T, T, T>(values, slopes, y, ctx.pool(), [](T v, T s) {
        if constexpr (std::is_unsigned_v<T>) return v;
        else return v < T(0) ? MulOp{}(s, v) : v;
      });
    });
  }
};

class Where : public Kernel {
 public:
  explicit Where(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& c = ctx.input(0);
    const Tensor& a = ctx.input(1);
    const Tensor& b = ctx.input(2);
    if (c.dtype() != onnx::TensorProto::BOOL) throw InputError("condition must be bool");
    if (a.dtype() != b.dtype()) throw InputError("X and Y types differ");
    Shape shape = broadcast_shapes(broadcast_shapes(c.shape(), a.shape()), b.shape());
    Broadcast<3> bc(shape, {&c.shape(), &a.shape(), &b.shape()});
    dispatch_by_size(a.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, a.dtype(), shape);
      const bool* pc = c.data<bool>();
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      T* py = y.mutable_data<T>();
      parallel_ranges(ctx.pool(), y.size(), kElementwiseGrain, [&](std::int64_t begin, std::int64_t end) {
        bc.for_runs(begin, end,
                    [&](std::int64_t o, const std::array<std::int64_t, 3>& off,
                        const std::array<std::int64_t, 3>& inner, std::int64_t len) {
                      for (std::int64_t i = 0; i < len; ++i)
                        py[o + i] = pc[off[0] + i * inner[0]] ? pa[off[1] + i * inner[1]] : pb[off[2] + i * inner[2]];
                    });
      });
    });
  }
};

}  // namespace

void register_elementwise_binary(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "Add", 7, top, make<SameTypeBinary<AddOp, 0>>(), kFloatComputeInPlaceFoldingRelu);
  add(r, "Sub", 7, top, make<SameTypeBinary<SubOp, 0>>(), kFloatComputeInPlace);
  add(r, "Mul", 7, top, make<SameTypeBinary<MulOp, 0>>(), kFloatComputeInPlace);
  add(r, "Div", 7, top, make<SameTypeBinary<DivOp, 0>>(), kFloatComputeInPlace);
  add(r, "Pow", 7, top, make<Pow>(), kFloatCompute);
  add(r, "Mod", 10, top, make<Mod>(), kFloatCompute);
  add(r, "BitShift", 11, top, make<BitShift>());
  add(r, "PRelu", 7, top, make<PRelu>(), kFloatCompute);
  add(r, "Sum", 6, top, make<Variadic<AddOp, false>>(), kFloatCompute);
  add(r, "Mean", 6, top, make<Variadic<AddOp, true>>(), kFloatCompute);
  add(r, "Max", 6, top, make<Variadic<MaxOp, false>>(), kFloatCompute);
  add(r, "Min", 6, top, make<Variadic<MinOp, false>>(), kFloatCompute);
  add(r, "Equal", 7, top, make<Compare<EqualOp, true>>(), kFloatCompute);
  add(r, "Greater", 7, top, make<Compare<LessOp, false, true>>(), kFloatCompute);
  add(r, "Less", 7, top, make<Compare<LessOp, false>>(), kFloatCompute);
  add(r, "GreaterOrEqual", 12, top, make<Compare<GreaterEqualOp, false>>(), kFloatCompute);
  add(r, "LessOrEqual", 12, top, make<Compare<GreaterEqualOp, false, true>>(), kFloatCompute);
  add(r, "And", 7, top, make<Logic<AndOp>>());
  add(r, "Or", 7, top, make<Logic<OrOp>>());
  add(r, "Xor", 7, top, make<Logic<XorOp>>());
  add(r, "Where", 9, top, make<Where>());
}

}  // namespace winml::runtime::kernels

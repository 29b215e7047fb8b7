// Reduce* (Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare)
// and ArgMax/ArgMin. Axes come from the attribute or, from opset 13
// (ReduceSum) / 18 (the others), from input 1. Each output element is
// accumulated by one thread in index order (double for floating point).
#include <cmath>
#include <limits>
#include <set>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"
#include "runtime/vector_math.h"

namespace winml::runtime::kernels {

namespace {

enum class Reduction { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// The input viewed as alternating kept / reduced dimension runs.
struct ReduceLayout {
  Shape out_shape;                                    // with keepdims
  Shape out_shape_squeezed;                           // without
  std::vector<std::int64_t> kept_dims, kept_strides;  // input strides of kept dims
  std::vector<std::int64_t> reduced_dims, reduced_strides;
  std::int64_t reduced_count = 1;
};

ReduceLayout layout(const Shape& in, const std::set<int>& axes) {
  ReduceLayout l;
  auto st = strides_of(in);
  for (int d = 0; d < static_cast<int>(in.size()); ++d) {
    if (axes.count(d)) {
      l.out_shape.push_back(1);
      l.reduced_dims.push_back(in[d]);
      l.reduced_strides.push_back(st[d]);
      l.reduced_count *= in[d];
    } else {
      l.out_shape.push_back(in[d]);
      l.out_shape_squeezed.push_back(in[d]);
      l.kept_dims.push_back(in[d]);
      l.kept_strides.push_back(st[d]);
    }
  }
  return l;
}

// Input offsets of output element `o`'s first input and of every reduced element.
std::int64_t base_offset(const ReduceLayout& l, std::int64_t o) {
  std::int64_t off = 0;
  for (int d = static_cast<int>(l.kept_dims.size()) - 1; d >= 0; --d) {
    off += (o % l.kept_dims[d]) * l.kept_strides[d];
    o /= l.kept_dims[d];
  }
  return off;
}

std::vector<std::int64_t> reduced_offsets(const ReduceLayout& l) {
  std::vector<std::int64_t> offs(static_cast<std::size_t>(l.reduced_count));
  for (std::int64_t r = 0; r < l.reduced_count; ++r) {
    std::int64_t rest = r, off = 0;
    for (int d = static_cast<int>(l.reduced_dims.size()) - 1; d >= 0; --d) {
      off += (rest % l.reduced_dims[d]) * l.reduced_strides[d];
      rest /= l.reduced_dims[d];
    }
    offs[r] = off;
  }
  return offs;
}

std::set<int> resolve_axes(const std::vector<std::int64_t>& axes, int rank, bool all_if_empty) {
  std::set<int> s;
  for (auto a : axes) s.insert(normalize_axis(a, rank));
  if (s.empty() && all_if_empty)
    for (int d = 0; d < rank; ++d) s.insert(d);
  return s;
}

// True when the reduced axes are the last ones, so each output reduces one
// contiguous run.
bool trailing(const ReduceLayout& l, int rank) {
  int reduced = static_cast<int>(l.reduced_dims.size());
  for (int i = 0; i < reduced; ++i)
    if (l.reduced_strides[i] !=
        dims_product(Shape(l.reduced_dims.begin() + i + 1, l.reduced_dims.end()), 0, reduced - i - 1))
      return false;
  return reduced == 0 || l.reduced_strides.back() == 1;
}

template <Reduction R>
class Reduce : public Kernel {
 public:
  Reduce(const NodeContext& n, std::int64_t input_axes_since)
      : keepdims_(n.attr_int("keepdims", 1) != 0),
        noop_empty_(n.attr_int("noop_with_empty_axes", 0) != 0),
        axes_from_input_(n.opset() >= input_axes_since),
        axes_(n.attr_ints("axes")) {}

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<std::int64_t> axes = axes_;
    if (axes_from_input_) axes = ctx.has_input(1) ? to_int64s(ctx.input(1)) : std::vector<std::int64_t>{};
    if (axes.empty() && noop_empty_) {
      ctx.set_output(0, x);
      return;
    }
    ReduceLayout l = layout(x.shape(), resolve_axes(axes, x.rank(), true));
    Shape out = keepdims_ ? l.out_shape : l.out_shape_squeezed;
    auto body = [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = ctx.allocate_output(0, x.dtype(), out).template mutable_data<T>();
      auto offs = reduced_offsets(l);
      std::int64_t n_out = shape_size(out);
      if (l.reduced_count == 0 && (R == Reduction::kMax || R == Reduction::kMin))
        throw InputError("cannot take the maximum or minimum of an empty set");
      // Sums over trailing axes of float32 rows take the vectorized path.
      bool rows = trailing(l, x.rank()) && (R == Reduction::kSum || R == Reduction::kMean);
      std::int64_t width = l.reduced_count;
      parallel_ranges(ctx.pool(), n_out, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(l.reduced_count, 1)),
                      [&](std::int64_t o0, std::int64_t o1) {
                        for (std::int64_t o = o0; o < o1; ++o) {
                          if constexpr (std::is_same_v<T, float>) {
                            if (rows) {
                              double s = vmath::sum(px + o * width, width);
                              py[o] = static_cast<float>(R == Reduction::kMean ? s / static_cast<double>(width) : s);
                              continue;
                            }
                          }
                          py[o] = reduce_one<T>(px + base_offset(l, o), offs);
                        }
                      });
    };
    dispatch_numeric(x.dtype(), body);
  }

 private:
  template <typename T>
  static T reduce_one(const T* x, const std::vector<std::int64_t>& offs) {
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
    std::int64_t n = static_cast<std::int64_t>(offs.size());
    if constexpr (R == Reduction::kMax || R == Reduction::kMin) {
      T best = x[offs[0]];
      for (std::int64_t i = 1; i < n; ++i) {
        T v = x[offs[i]];
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(v)) return v;
        if (R == Reduction::kMax ? v > best : v < best) best = v;
      }
      return best;
    } else if constexpr (R == Reduction::kLogSumExp) {
      double m = -std::numeric_limits<double>::infinity();
      for (std::int64_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(x[offs[i]]));
      if (std::isinf(m)) return static_cast<T>(m);
      double s = 0;
      for (std::int64_t i = 0; i < n; ++i) s += std::exp(static_cast<double>(x[offs[i]]) - m);
      return static_cast<T>(m + std::log(s));
    } else if constexpr (R == Reduction::kProd) {
      Acc p = Acc(1);
      for (std::int64_t i = 0; i < n; ++i) p = static_cast<Acc>(p * x[offs[i]]);
      return static_cast<T>(p);
    } else {
      Acc s = Acc(0);
      for (std::int64_t i = 0; i < n; ++i) {
        Acc v = static_cast<Acc>(x[offs[i]]);
        if constexpr (R == Reduction::kL1) {
          if constexpr (std::is_signed_v<Acc>) s = static_cast<Acc>(s + (v < 0 ? -v : v));
          else s = static_cast<Acc>(s + v);
        } else if constexpr (R == Reduction::kL2 || R == Reduction::kSumSquare) {
          s = static_cast<Acc>(s + v * v);
        } else {
          s = static_cast<Acc>(s + v);
        }
      }
      if constexpr (R == Reduction::kMean) return static_cast<T>(s / static_cast<Acc>(n));
      if constexpr (R == Reduction::kL2) return static_cast<T>(std::sqrt(static_cast<double>(s)));
      if constexpr (R == Reduction::kLogSum) return static_cast<T>(std::log(static_cast<double>(s)));
      return static_cast<T>(s);
    }
  }

  bool keepdims_, noop_empty_, axes_from_input_;
  std::vector<std::int64_t> axes_;
};

template <Reduction R, int Since>
class ReduceOf : public Reduce<R> {
 public:
  explicit ReduceOf(const NodeContext& n) : Reduce<R>(n, Since) {}
};

template <bool kMax>
class ArgReduce : public Kernel {
 public:
  explicit ArgReduce(const NodeContext& n)
      : axis_(n.attr_int("axis", 0)),
        keepdims_(n.attr_int("keepdims", 1) != 0),
        last_(n.attr_int("select_last_index", 0) != 0) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int axis = normalize_axis(axis_, x.rank());
    ReduceLayout l = layout(x.shape(), {axis});
    Shape out = keepdims_ ? l.out_shape : l.out_shape_squeezed;
    std::int64_t len = x.dim(axis), stride = l.reduced_strides[0];
    if (len == 0) throw InputError("cannot take ArgMax/ArgMin of an empty axis");
    dispatch_numeric(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      std::int64_t* py = ctx.allocate_output(0, onnx::TensorProto::INT64, out).mutable_data<std::int64_t>();
      for (std::int64_t o = 0; o < shape_size(out); ++o) {
        const T* v = px + base_offset(l, o);
        std::int64_t best = 0;
        for (std::int64_t k = 1; k < len; ++k) {
          T a = v[k * stride], b = v[best * stride];
          bool better = kMax ? (last_ ? a >= b : a > b) : (last_ ? a <= b : a < b);
          if (better) best = k;
        }
        py[o] = best;
      }
    });
  }

 private:
  std::int64_t axis_;
  bool keepdims_, last_;
};

}  // namespace

void register_reduce(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "ReduceSum", 1, top, make<ReduceOf<Reduction::kSum, 13>>(), kFloatCompute);
  add(r, "ReduceMean", 1, top, make<ReduceOf<Reduction::kMean, 18>>(), kFloatCompute);
  add(r, "ReduceMax", 1, top, make<ReduceOf<Reduction::kMax, 18>>(), kFloatCompute);
  add(r, "ReduceMin", 1, top, make<ReduceOf<Reduction::kMin, 18>>(), kFloatCompute);
  add(r, "ReduceProd", 1, top, make<ReduceOf<Reduction::kProd, 18>>(), kFloatCompute);
  add(r, "ReduceL1", 1, top, make<ReduceOf<Reduction::kL1, 18>>(), kFloatCompute);
  add(r, "ReduceL2", 1, top, make<ReduceOf<Reduction::kL2, 18>>(), kFloatCompute);
  add(r, "ReduceLogSum", 1, top, make<ReduceOf<Reduction::kLogSum, 18>>(), kFloatCompute);
  add(r, "ReduceLogSumExp", 1, top, make<ReduceOf<Reduction::kLogSumExp, 18>>(), kFloatCompute);
  add(r, "ReduceSumSquare", 1, top, make<ReduceOf<Reduction::kSumSquare, 18>>(), kFloatCompute);
  add(r, "ArgMax", 1, top, make<ArgReduce<true>>(), kFloatCompute);
  add(r, "ArgMin", 1, top, make<ArgReduce<false>>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels

// Integer and quantized-linear ops: MatMulInteger, QLinearMatMul,
// ConvInteger, QLinearConv. Accumulation is exact (int64), requantization
// rounds half to even and saturates.
#include <cmath>
#include <limits>

#include "runtime/kernels/common.h"
#include "runtime/kernels/conv_geometry.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

// Element i of an int8/uint8 tensor as int64.
std::int64_t q_at(const Tensor& t, std::int64_t i) {
  if (t.dtype() == onnx::TensorProto::UINT8) return t.data<std::uint8_t>()[i];
  if (t.dtype() == onnx::TensorProto::INT8) return t.data<std::int8_t>()[i];
  unsupported_type(t.dtype(), "int8 or uint8");
}

// A zero point: absent (0), scalar, or one per row/column/channel.
std::int64_t zp_at(const Tensor* zp, std::int64_t i) {
  if (!zp || zp->size() == 0) return 0;
  return q_at(*zp, zp->size() == 1 ? 0 : i);
}

float scale_at(const Tensor& s, std::int64_t i) { return s.data<float>()[s.size() == 1 ? 0 : i]; }

// acc[b, m, n] = sum_k (A - za)(B - zb) with numpy batch broadcasting over leading dims.
std::vector<std::int64_t> int_matmul(const Tensor& a, const Tensor& b, const Tensor* za, const Tensor* zb, Shape& out) {
  if (a.rank() < 2 || b.rank() < 2) throw InputError("integer MatMul needs inputs of rank >= 2");
  std::int64_t M = a.dim(a.rank() - 2), K = a.dim(a.rank() - 1), N = b.dim(b.rank() - 1);
  if (b.dim(b.rank() - 2) != K) throw InputError("inner dimensions differ");
  Shape ab(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
  Shape batch = broadcast_shapes(ab, bb);
  out = batch;
  out.push_back(M);
  out.push_back(N);
  std::int64_t batches = shape_size(batch);
  std::vector<std::int64_t> acc(static_cast<std::size_t>(batches * M * N));
  for (std::int64_t i = 0; i < batches; ++i) {
    // Broadcast batch index -> each operand's batch index.
    std::int64_t ia = 0, ib = 0, rest = i, sa = 1, sb = 1;
    for (int d = static_cast<int>(batch.size()) - 1; d >= 0; --d) {
      std::int64_t idx = rest % batch[d];
      rest /= batch[d];
      int da = d - static_cast<int>(batch.size() - ab.size()), db = d - static_cast<int>(batch.size() - bb.size());
      if (da >= 0) {
        ia += (ab[da] == 1 ? 0 : idx) * sa;
        sa *= ab[da];
      }
      if (db >= 0) {
        ib += (bb[db] == 1 ? 0 : idx) * sb;
        sb *= bb[db];
      }
    }
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t n = 0; n < N; ++n) {
        std::int64_t s = 0;
        for (std::int64_t k = 0; k < K; ++k)
          s += (q_at(a, (ia * M + m) * K + k) - zp_at(za, m)) * (q_at(b, (ib * K + k) * N + n) - zp_at(zb, n));
        acc[(i * M + m) * N + n] = s;
      }
  }
  return acc;
}

template <typename Q>
Q requantize(double v, double zp) {
  double r = std::nearbyint(v) + zp;
  return static_cast<Q>(std::clamp(r, double(std::numeric_limits<Q>::lowest()), double(std::numeric_limits<Q>::max())));
}

class MatMulInteger : public Kernel {
 public:
  explicit MatMulInteger(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    Shape out;
    auto acc = int_matmul(ctx.input(0), ctx.input(1), ctx.optional_input(2), ctx.optional_input(3), out);
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::INT32, out);
    for (std::size_t i = 0; i < acc.size(); ++i) y.mutable_data<std::int32_t>()[i] = static_cast<std::int32_t>(acc[i]);
  }
};

class QLinearMatMul : public Kernel {
 public:
  explicit QLinearMatMul(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& sa = ctx.input(1);
    const Tensor& b = ctx.input(3);
    const Tensor& sb = ctx.input(4);
    const Tensor& sy = ctx.input(6);
    const Tensor& zy = ctx.input(7);
    Shape out;
    auto acc = int_matmul(a, b, &ctx.input(2), &ctx.input(5), out);
    std::int64_t N = out.back(), M = out[out.size() - 2];
    dispatch_quantized_8(zy.dtype(), [&]<typename Q>() {
      Tensor& y = ctx.allocate_output(0, zy.dtype(), out);
      for (std::size_t i = 0; i < acc.size(); ++i) {
        std::int64_t n = static_cast<std::int64_t>(i) % N, m = (static_cast<std::int64_t>(i) / N) % M;
        double real = static_cast<double>(acc[i]) * scale_at(sa, m) * scale_at(sb, n);
        y.mutable_data<Q>()[i] = requantize<Q>(real / scale_at(sy, 0), static_cast<double>(zp_at(&zy, 0)));
      }
    });
  }

  template <typename F>
  static void dispatch_quantized_8(DataType t, F&& f) {
    if (t == onnx::TensorProto::UINT8) f.template operator()<std::uint8_t>();
    else if (t == onnx::TensorProto::INT8) f.template operator()<std::int8_t>();
    else unsupported_type(t, "int8 or uint8");
  }
};

// Direct integer convolution: acc[n, m, o] = sum (x - zx)(w - zw[m]).
std::vector<std::int64_t> int_conv(const Tensor& x, const Tensor& w, const Tensor* zx, const Tensor* zw,
                                   const WindowAttrs& attrs, std::int64_t group, Shape& out) {
  std::int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0), Cg = C / group, Mg = M / group;
  std::vector<std::int64_t> in(x.shape().begin() + 2, x.shape().end()), kernel(w.shape().begin() + 2, w.shape().end());
  Window win = forward_window(attrs, in, kernel);
  out = {N, M};
  out.insert(out.end(), win.out.begin(), win.out.end());
  int d = win.dims();
  std::int64_t osize = win.out_size(), ksize = win.kernel_size(), isize = shape_size(win.in);
  std::vector<std::int64_t> acc(static_cast<std::size_t>(N * M * osize), 0);
  std::int64_t x_zero = zp_at(zx, 0);
  std::vector<std::int64_t> o(d), k(d);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m) {
      std::int64_t g = m / Mg, w_zero = zp_at(zw, m);
      std::fill(o.begin(), o.end(), 0);
      for (std::int64_t op = 0; op < osize; ++op) {
        std::int64_t s = 0;
        for (std::int64_t c = 0; c < Cg; ++c) {
          std::fill(k.begin(), k.end(), 0);
          for (std::int64_t kp = 0; kp < ksize; ++kp) {
            std::int64_t off = 0;
            bool inside = true;
            for (int a = 0; a < d; ++a) {
              std::int64_t pos = o[a] * win.strides[a] - win.pad_begin[a] + k[a] * win.dilations[a];
              inside = inside && pos >= 0 && pos < win.in[a];
              off = off * win.in[a] + pos;
            }
            std::int64_t xv = inside ? q_at(x, (n * C + g * Cg + c) * isize + off) - x_zero : 0;
            s += xv * (q_at(w, (m * Cg + c) * ksize + kp) - w_zero);
            for (int a = d - 1; a >= 0; --a) {
              if (++k[a] < win.kernel[a]) break;
              k[a] = 0;
            }
          }
        }
        acc[(n * M + m) * osize + op] = s;
        for (int a = d - 1; a >= 0; --a) {
          if (++o[a] < win.out[a]) break;
          o[a] = 0;
        }
      }
    }
  return acc;
}

class ConvInteger : public Kernel {
 public:
  explicit ConvInteger(const NodeContext& n) : attrs_(WindowAttrs::from_node(n)), group_(n.attr_int("group", 1)) {}
  void run(KernelContext& ctx) const override {
    Shape out;
    auto acc = int_conv(ctx.input(0), ctx.input(1), ctx.optional_input(2), ctx.optional_input(3), attrs_, group_, out);
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::INT32, out);
    for (std::size_t i = 0; i < acc.size(); ++i) y.mutable_data<std::int32_t>()[i] = static_cast<std::int32_t>(acc[i]);
  }

 private:
  WindowAttrs attrs_;
  std::int64_t group_;
};

class QLinearConv : public Kernel {
 public:
  explicit QLinearConv(const NodeContext& n) : attrs_(WindowAttrs::from_node(n)), group_(n.attr_int("group", 1)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& sx = ctx.input(1);
    const Tensor& sw = ctx.input(4);
    const Tensor& sy = ctx.input(6);
    const Tensor& zy = ctx.input(7);
    const Tensor* bias = ctx.optional_input(8);
    Shape out;
    auto acc = int_conv(ctx.input(0), ctx.input(3), &ctx.input(2), &ctx.input(5), attrs_, group_, out);
    std::int64_t M = out[1], osize = shape_size(out) / (out[0] * M);
    QLinearMatMul::dispatch_quantized_8(zy.dtype(), [&]<typename Q>() {
      Tensor& y = ctx.allocate_output(0, zy.dtype(), out);
      for (std::size_t i = 0; i < acc.size(); ++i) {
        std::int64_t m = (static_cast<std::int64_t>(i) / osize) % M;
        std::int64_t a = acc[i] + (bias ? bias->data<std::int32_t>()[m] : 0);
        double real = static_cast<double>(a) * scale_at(sx, 0) * scale_at(sw, m);
        y.mutable_data<Q>()[i] = requantize<Q>(real / scale_at(sy, 0), static_cast<double>(zp_at(&zy, 0)));
      }
    });
  }

 private:
  WindowAttrs attrs_;
  std::int64_t group_;
};

}  // namespace

void register_integer_ops(KernelRegistry& r) {
  add(r, "MatMulInteger", 10, kMaxOnnxOpset, make<MatMulInteger>());
  add(r, "QLinearMatMul", 10, kMaxOnnxOpset, make<QLinearMatMul>());
  add(r, "ConvInteger", 10, kMaxOnnxOpset, make<ConvInteger>());
  add(r, "QLinearConv", 10, kMaxOnnxOpset, make<QLinearConv>());
}

}  // namespace winml::runtime::kernels

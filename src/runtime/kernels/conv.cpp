// Conv (im2col + tiled GEMM; Winograd for the 3x3 kernels it suits; direct
// loops for depthwise 2-D) and ConvTranspose (GEMM + col2im), float32, any
// number of spatial dims.
#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "runtime/gemm.h"
#include "runtime/kernels/common.h"
#include "runtime/kernels/conv_geometry.h"
#include "runtime/kernels/register.h"
#include "runtime/kernels/winograd.h"
#include "runtime/scratch.h"

namespace winml::runtime::kernels {

namespace {

// dst[i] = src[2 * i] for i < n: the columns of a stride-2 window. Four at a
// time from two loads where SSE2 is there (every x86-64); one at a time,
// the copy was most of im2col's time in strided convs (ResNet-50's 7x7
// stem: 3.70 -> 3.30 ms on one thread).
void copy_even(const float* src, std::int64_t n, float* dst) {
  std::int64_t i = 0;
#if defined(__SSE2__)
  // (a group reads src[2 * i + 7], past its last column: inside the source
  // only while another column follows)
  for (; i + 4 < n; i += 4) {
    __m128 a = _mm_loadu_ps(src + 2 * i), b = _mm_loadu_ps(src + 2 * i + 4);
    _mm_storeu_ps(dst + i, _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
  }
#endif
  for (; i < n; ++i) dst[i] = src[2 * i];
}

// Rows of im2col: (channel, kernel offset) pairs; columns: output positions.
// Fills rows [r0, r1) and columns [p0, p1) of one image's im2col matrix into
// `col`: row r at col + r * ld, column p at offset p - p0.
void im2col(const float* x, const Window& w, std::int64_t r0, std::int64_t r1, std::int64_t p0, std::int64_t p1,
            float* col, std::int64_t ld) {
  std::int64_t ksize = w.kernel_size(), isize = shape_size(w.in);
  int d = w.dims();
  if (d == 2) {
    std::int64_t H = w.in[0], W = w.in[1], OW = w.out[1], KW = w.kernel[1];
    std::int64_t sh = w.strides[0], sw = w.strides[1], dh = w.dilations[0], dw = w.dilations[1];
    std::int64_t ph = w.pad_begin[0], pw = w.pad_begin[1];
    for (std::int64_t r = r0; r < r1; ++r) {
      std::int64_t c = r / ksize, kh = (r % ksize) / KW, kw = r % KW;
      const float* xc = x + c * isize;
      float* dst = col + r * ld - p0;
      std::int64_t off = kw * dw - pw;
      // Output columns whose input column lies inside the image.
      std::int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
      std::int64_t hi = W - 1 - off < 0 ? -1 : std::min(OW - 1, (W - 1 - off) / sw);
      for (std::int64_t oh = p0 / OW; oh * OW < p1; ++oh) {
        std::int64_t a = std::max(p0 - oh * OW, std::int64_t{0}), b = std::min(p1 - oh * OW, OW);  // this row's part
        std::int64_t ih = oh * sh - ph + kh * dh;
        float* row = dst + oh * OW;
        if (ih < 0 || ih >= H || hi < lo) {
          std::fill(row + a, row + b, 0.0f);
          continue;
        }
        const float* xrow = xc + ih * W;
        std::int64_t vlo = std::max(a, lo), vhi = std::min(b - 1, hi);
        for (std::int64_t ow = a; ow < std::min(b, vlo); ++ow) row[ow] = 0.0f;
        if (sw == 1) {
          if (vhi >= vlo) std::memcpy(row + vlo, xrow + vlo + off, sizeof(float) * (vhi - vlo + 1));
        } else if (sw == 2) {
          if (vhi >= vlo) copy_even(xrow + vlo * 2 + off, vhi - vlo + 1, row + vlo);
        } else {
          for (std::int64_t ow = vlo; ow <= vhi; ++ow) row[ow] = xrow[ow * sw + off];
        }
        for (std::int64_t ow = std::max(a, vhi + 1); ow < b; ++ow) row[ow] = 0.0f;
      }
    }
    return;
  }
  // Any rank: odometers over kernel and output positions.
  std::vector<std::int64_t> k(d), o(d);
  for (std::int64_t r = r0; r < r1; ++r) {
    std::int64_t c = r / ksize, rest = r % ksize;
    for (int i = d - 1; i >= 0; --i) {
      k[i] = rest % w.kernel[i];
      rest /= w.kernel[i];
    }
    const float* xc = x + c * isize;
    float* dst = col + r * ld - p0;
    std::int64_t start = p0;
    for (int i = d - 1; i >= 0; --i) {
      o[i] = start % w.out[i];
      start /= w.out[i];
    }
    for (std::int64_t p = p0; p < p1; ++p) {
      std::int64_t offset = 0;
      bool inside = true;
      for (int i = 0; i < d && inside; ++i) {
        std::int64_t pos = o[i] * w.strides[i] - w.pad_begin[i] + k[i] * w.dilations[i];
        inside = pos >= 0 && pos < w.in[i];
        offset = offset * w.in[i] + pos;
      }
      dst[p] = inside ? xc[offset] : 0.0f;
      for (int i = d - 1; i >= 0; --i) {
        if (++o[i] < w.out[i]) break;
        o[i] = 0;
      }
    }
  }
}

// Rows [r0, r1) of `row` values each, clamped at zero: a folded Relu on the
// paths whose kernels do not apply it as they write.
void clamp_rows(float* y, std::int64_t row, std::int64_t r0, std::int64_t r1) {
  for (std::int64_t i = r0 * row, end = r1 * row; i < end; ++i) y[i] = relu(y[i]);
}

// Depthwise 2-D convolution of channels [c0, c1): direct loops, each output
// accumulated over the kernel in a fixed order.
void depthwise2d(const float* x, const float* weights, const float* bias, const Window& w, std::int64_t c0,
                 std::int64_t c1, float* y) {
  std::int64_t H = w.in[0], W = w.in[1], OH = w.out[0], OW = w.out[1], KH = w.kernel[0], KW = w.kernel[1];
  std::int64_t sh = w.strides[0], sw = w.strides[1], dh = w.dilations[0], dw = w.dilations[1];
  std::int64_t ph = w.pad_begin[0], pw = w.pad_begin[1];
  for (std::int64_t c = c0; c < c1; ++c) {
    const float* xc = x + c * H * W;
    const float* wc = weights + c * KH * KW;
    float* yc = y + c * OH * OW;
    float b = bias ? bias[c] : 0.0f;
    for (std::int64_t oh = 0; oh < OH; ++oh) {
      float* row = yc + oh * OW;
      for (std::int64_t ow = 0; ow < OW; ++ow) row[ow] = b;
      for (std::int64_t kh = 0; kh < KH; ++kh) {
        std::int64_t ih = oh * sh - ph + kh * dh;
        if (ih < 0 || ih >= H) continue;
        const float* xrow = xc + ih * W;
        for (std::int64_t kw = 0; kw < KW; ++kw) {
          float wv = wc[kh * KW + kw];
          std::int64_t off = kw * dw - pw;
          std::int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
          std::int64_t hi = W - 1 - off < 0 ? -1 : std::min(OW - 1, (W - 1 - off) / sw);
          if (sw == 1) {
            const float* src = xrow + off;
            for (std::int64_t ow = lo; ow <= hi; ++ow) row[ow] += wv * src[ow];
          } else {
            for (std::int64_t ow = lo; ow <= hi; ++ow) row[ow] += wv * xrow[ow * sw + off];
          }
        }
      }
    }
  }
}

class Conv : public Kernel {
 public:
  explicit Conv(const NodeContext& n) : attrs_(WindowAttrs::from_node(n)), group_(n.attr_int("group", 1)) {
    if (group_ < 1) n.fail("group must be positive");
    // Constant weights are packed once for the GEMM kernels (one block per group).
    const Tensor* w = n.constant_input(1);
    if (w && w->dtype() == onnx::TensorProto::FLOAT && w->rank() >= 3 && w->dim(0) % group_ == 0) {
      std::int64_t M = w->dim(0), Mg = M / group_, rows = w->size() / std::max<std::int64_t>(M, 1);
      bool depthwise = Mg == 1 && w->dim(1) == 1 && w->rank() == 4;
      if (Winograd3x3::suits(attrs_, group_, w->shape())) {
        std::int64_t C = w->dim(1);
        winograd_ = std::make_unique<Winograd3x3>(w->data<float>(), M, C, Winograd3x3::block_for(M, C));
      } else if (!depthwise)
        for (std::int64_t g = 0; g < group_; ++g)
          packed_.push_back(
              pack_weights(PackedWeights::Side::kLeft, w->data<float>() + g * Mg * rows, rows, false, rows, Mg));
    }
  }

  bool prepacked_input(int i) const override { return i == 1 && (!packed_.empty() || winograd_); }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& wt = ctx.input(1);
    const Tensor* b = ctx.optional_input(2);
    const Window w = checked_window(x, wt, b);
    const std::int64_t N = x.dim(0), C = x.dim(1), M = wt.dim(0);
    Shape out{N, M};
    out.insert(out.end(), w.out.begin(), w.out.end());
    Tensor& y = ctx.allocate_output(0, x.dtype(), out);
    const Call call{.px = x.data<float>(),
                    .pw = wt.data<float>(),
                    .pb = b ? b->data<float>() : nullptr,
                    .py = y.mutable_data<float>(),
                    .N = N,
                    .C = C,
                    .M = M,
                    .isize = shape_size(w.in),
                    .osize = w.out_size(),
                    .relu = ctx.relu_output()};
    if (group_ == C && M / group_ == 1 && w.dims() == 2) {
      depthwise(call, w, ctx.pool());
      return;
    }
    if (winograd_) {  // (2-D: its weights, and so X, have rank 4)
      winograd_->run(call.px, N, w, call.pb, call.relu, call.py, ctx.pool());
      return;
    }
    by_gemm(call, w, ctx.pool());
  }

 private:
  // One run's tensors and sizes.
  struct Call {
    const float* px;
    const float* pw;
    const float* pb;  // the bias, or null
    float* py;
    std::int64_t N, C, M, isize, osize;
    bool relu;
  };

  // The window over X's spatial dimensions; InputError when X, W and B do not fit.
  Window checked_window(const Tensor& x, const Tensor& wt, const Tensor* b) const {
    if (x.dtype() != onnx::TensorProto::FLOAT || wt.dtype() != onnx::TensorProto::FLOAT)
      unsupported_type(x.dtype() == onnx::TensorProto::FLOAT ? wt.dtype() : x.dtype(), "float32");
    if (x.rank() < 3 || wt.rank() != x.rank())
      throw InputError("Conv needs X and W of equal rank >= 3, got " + shape_string(x.shape()) + " and " +
                       shape_string(wt.shape()));
    const std::int64_t C = x.dim(1), M = wt.dim(0);
    if (C != wt.dim(1) * group_ || M % group_ != 0)
      throw InputError("channels do not match: X " + shape_string(x.shape()) + ", W " + shape_string(wt.shape()) +
                       ", group " + std::to_string(group_));
    if (b && b->size() != M)
      throw InputError("bias has " + std::to_string(b->size()) + " values for " + std::to_string(M) + " channels");
    std::vector<std::int64_t> in(x.shape().begin() + 2, x.shape().end());
    std::vector<std::int64_t> kernel(wt.shape().begin() + 2, wt.shape().end());
    if (!attrs_.kernel.empty() && attrs_.kernel != kernel) throw InputError("kernel_shape does not match W");
    return forward_window(attrs_, in, kernel);
  }

  void depthwise(const Call& c, const Window& w, ThreadPool& pool) const {
    for (std::int64_t n = 0; n < c.N; ++n)
      parallel_ranges(pool, c.C, 8, [&](std::int64_t c0, std::int64_t c1) {
        depthwise2d(c.px + n * c.C * c.isize, c.pw, c.pb, w, c0, c1, c.py + n * c.M * c.osize);
        if (c.relu) clamp_rows(c.py + n * c.M * c.osize, c.osize, c0, c1);
      });
  }

  // im2col and a GEMM per image and group. With packed weights, im2col runs
  // in column blocks that stay in cache, each followed by its GEMM on the
  // same thread (when there are enough); a pointwise convolution needs none.
  void by_gemm(const Call& c, const Window& w, ThreadPool& pool) const {
    const std::int64_t Cg = c.C / group_, Mg = c.M / group_, ksize = w.kernel_size(), osize = c.osize;
    bool pointwise = ksize == 1;
    for (int i = 0; i < w.dims() && pointwise; ++i)
      pointwise = w.strides[i] == 1 && w.pad_begin[i] == 0 && w.pad_end[i] == 0;
    const std::int64_t rows = Cg * ksize;
    const std::int64_t block =
        std::max<std::int64_t>(48, (std::int64_t{1} << 17) / std::max<std::int64_t>(rows, 1) / 48 * 48);
    const std::int64_t blocks = (osize + block - 1) / block;
    const bool blocked = !pointwise && !packed_.empty() && blocks >= 4;
    Scratch col(pointwise || blocked ? 0 : sizeof(float) * static_cast<std::size_t>(rows * osize));
    for (std::int64_t n = 0; n < c.N; ++n) {
      for (std::int64_t g = 0; g < group_; ++g) {
        const float* xg = c.px + (n * c.C + g * Cg) * c.isize;
        float* yg = c.py + (n * c.M + g * Mg) * osize;
        const float* bias = c.pb ? c.pb + g * Mg : nullptr;
        if (blocked) {
          pool.parallel_for(blocks, [&](std::int64_t t) {
            std::int64_t p0 = t * block, p1 = std::min(osize, p0 + block), cols = p1 - p0;
            Scratch tile(sizeof(float) * static_cast<std::size_t>(rows * cols));
            im2col(xg, w, 0, rows, p0, p1, tile.as<float>(), cols);
            sgemm_packed(*packed_[g], tile.as<float>(), cols, false, cols, yg + p0, osize, false, pool, bias, c.relu);
          });
          continue;
        }
        const float* B = xg;
        if (!pointwise) {
          parallel_ranges(
              pool, rows, std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(osize, 1)),
              [&](std::int64_t r0, std::int64_t r1) { im2col(xg, w, r0, r1, 0, osize, col.as<float>(), osize); });
          B = col.as<float>();
        }
        if (!packed_.empty()) {
          // (each output starts from its channel's bias, the product added to it)
          sgemm_packed(*packed_[g], B, osize, false, osize, yg, osize, false, pool, bias, c.relu);
          continue;
        }
        GemmArgs args;
        args.a = c.pw + g * Mg * rows;
        args.lda = rows;
        args.b = B;
        args.ldb = osize;
        args.c = yg;
        args.ldc = osize;
        args.m = Mg;
        args.n = osize;
        args.k = rows;
        sgemm(args, pool);
      }
      if ((c.pb || c.relu) && packed_.empty()) add_bias_and_clamp(c, n, pool);
    }
  }

  // Unpacked weights: the bias added to image n's output, then the fused Relu.
  static void add_bias_and_clamp(const Call& c, std::int64_t n, ThreadPool& pool) {
    float* yn = c.py + n * c.M * c.osize;
    parallel_ranges(pool, c.M, std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(c.osize, 1)),
                    [&](std::int64_t m0, std::int64_t m1) {
                      if (c.pb)
                        for (std::int64_t m = m0; m < m1; ++m) {
                          const float bv = c.pb[m];
                          float* row = yn + m * c.osize;
                          for (std::int64_t i = 0; i < c.osize; ++i) row[i] += bv;
                        }
                      if (c.relu) clamp_rows(yn, c.osize, m0, m1);
                    });
  }

  WindowAttrs attrs_;
  std::int64_t group_;
  std::vector<std::shared_ptr<const PackedWeights>> packed_;
  std::unique_ptr<Winograd3x3> winograd_;  // instead of packed_, for 3x3 kernels it suits
};

class ConvTranspose : public Kernel {
 public:
  explicit ConvTranspose(const NodeContext& n)
      : attrs_(WindowAttrs::from_node(n)),
        group_(n.attr_int("group", 1)),
        output_padding_(n.attr_ints("output_padding")),
        output_shape_(n.attr_ints("output_shape")) {
    if (group_ < 1) n.fail("group must be positive");
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& wt = ctx.input(1);
    const Tensor* b = ctx.optional_input(2);
    if (x.dtype() != onnx::TensorProto::FLOAT) unsupported_type(x.dtype(), "float32");
    if (x.rank() < 3 || wt.rank() != x.rank()) throw InputError("ConvTranspose needs X and W of equal rank >= 3");
    std::int64_t N = x.dim(0), C = x.dim(1);
    if (wt.dim(0) != C) throw InputError("W's first dimension must equal X's channels");
    std::int64_t Mg = wt.dim(1), M = Mg * group_, Cg = C / group_;
    int d = x.rank() - 2;
    Window w;
    w.in.assign(x.shape().begin() + 2, x.shape().end());
    w.kernel.assign(wt.shape().begin() + 2, wt.shape().end());
    auto ones = std::vector<std::int64_t>(static_cast<std::size_t>(d), 1);
    w.strides = attrs_.strides.empty() ? ones : attrs_.strides;
    w.dilations = attrs_.dilations.empty() ? ones : attrs_.dilations;
    std::vector<std::int64_t> out_pad = output_padding_.empty() ? std::vector<std::int64_t>(d, 0) : output_padding_;
    w.pad_begin.assign(d, 0);
    w.pad_end.assign(d, 0);
    w.out.resize(d);
    bool same = attrs_.auto_pad == "SAME_UPPER" || attrs_.auto_pad == "SAME_LOWER";
    for (int i = 0; i < d; ++i) {
      std::int64_t extent = w.dilations[i] * (w.kernel[i] - 1) + 1;
      std::int64_t full = w.strides[i] * (w.in[i] - 1) + out_pad[i] + extent;
      if (!output_shape_.empty() || same) {
        std::int64_t target =
            !output_shape_.empty() ? output_shape_[output_shape_.size() - d + i] : w.in[i] * w.strides[i];
        std::int64_t total = std::max<std::int64_t>(0, full - target);
        if (attrs_.auto_pad == "SAME_UPPER") {
          w.pad_begin[i] = total / 2;
        } else {
          w.pad_begin[i] = total - total / 2;
        }
        w.pad_end[i] = total - w.pad_begin[i];
        w.out[i] = target;
      } else {
        if (!attrs_.pads.empty()) {
          w.pad_begin[i] = attrs_.pads[i];
          w.pad_end[i] = attrs_.pads[i + d];
        }
        w.out[i] = full - w.pad_begin[i] - w.pad_end[i];
      }
    }
    Shape out{N, M};
    out.insert(out.end(), w.out.begin(), w.out.end());
    Tensor& y = ctx.allocate_output(0, x.dtype(), out);
    std::int64_t isize = shape_size(w.in), osize = w.out_size(), ksize = w.kernel_size();
    std::int64_t rows = Mg * ksize;
    Scratch col(sizeof(float) * static_cast<std::size_t>(rows * isize));
    const float* px = x.data<float>();
    const float* pw = wt.data<float>();
    float* py = y.mutable_data<float>();
    for (std::int64_t n = 0; n < N; ++n) {
      for (std::int64_t g = 0; g < group_; ++g) {
        // col[Mg*K, in] = W_g^T [Mg*K, Cg] x X_g [Cg, in]
        GemmArgs args;
        args.a = pw + g * Cg * rows;
        args.lda = rows;
        args.trans_a = true;
        args.b = px + (n * C + g * Cg) * isize;
        args.ldb = isize;
        args.c = col.as<float>();
        args.ldc = isize;
        args.m = rows;
        args.n = isize;
        args.k = Cg;
        sgemm(args, ctx.pool());
        float* yg = py + (n * M + g * Mg) * osize;
        parallel_ranges(ctx.pool(), Mg, 1, [&](std::int64_t m0, std::int64_t m1) {
          for (std::int64_t m = m0; m < m1; ++m) col2im(col.as<float>() + m * ksize * isize, w, yg + m * osize);
        });
      }
      if (b) {
        const float* pb = b->data<float>();
        for (std::int64_t m = 0; m < M; ++m)
          for (std::int64_t i = 0; i < osize; ++i) py[(n * M + m) * osize + i] += pb[m];
      }
    }
  }

 private:
  // y[o] = sum of col[(k), i] over the (k, i) that land on o, in (k, i) order.
  static void col2im(const float* col, const Window& w, float* y) {
    int d = w.dims();
    std::int64_t isize = shape_size(w.in), osize = w.out_size(), ksize = w.kernel_size();
    std::fill(y, y + osize, 0.0f);
    std::vector<std::int64_t> k(d), i(d);
    for (std::int64_t kr = 0; kr < ksize; ++kr) {
      std::int64_t rest = kr;
      for (int a = d - 1; a >= 0; --a) {
        k[a] = rest % w.kernel[a];
        rest /= w.kernel[a];
      }
      std::fill(i.begin(), i.end(), 0);
      const float* src = col + kr * isize;
      for (std::int64_t p = 0; p < isize; ++p) {
        std::int64_t offset = 0;
        bool inside = true;
        for (int a = 0; a < d && inside; ++a) {
          std::int64_t pos = i[a] * w.strides[a] - w.pad_begin[a] + k[a] * w.dilations[a];
          inside = pos >= 0 && pos < w.out[a];
          offset = offset * w.out[a] + pos;
        }
        if (inside) y[offset] += src[p];
        for (int a = d - 1; a >= 0; --a) {
          if (++i[a] < w.in[a]) break;
          i[a] = 0;
        }
      }
    }
  }

  WindowAttrs attrs_;
  std::int64_t group_;
  std::vector<std::int64_t> output_padding_, output_shape_;
};

}  // namespace

void register_conv(KernelRegistry& r) {
  add(r, "Conv", 1, kMaxOnnxOpset, make<Conv>(), kFloatComputeFoldingRelu);
  add(r, "ConvTranspose", 1, kMaxOnnxOpset, make<ConvTranspose>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels

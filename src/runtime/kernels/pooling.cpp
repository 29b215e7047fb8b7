// MaxPool (with Indices), AveragePool, LpPool and their Global forms, any
// number of spatial dims; one (batch, channel) plane per work item.
#include <cmath>
#include <limits>

#include "runtime/kernels/common.h"
#include "runtime/kernels/conv_geometry.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

enum class PoolKind { kMax, kAverage, kLp };

class Pool : public Kernel {
 public:
  Pool(const NodeContext& n, PoolKind kind)
      : kind_(kind),
        attrs_(WindowAttrs::from_node(n)),
        count_include_pad_(n.attr_int("count_include_pad", 0) != 0),
        storage_order_(n.attr_int("storage_order", 0)),
        p_(static_cast<double>(n.attr_int("p", 2))) {
    if (attrs_.kernel.empty()) n.fail("missing required attribute 'kernel_shape'");
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 3) throw InputError("pooling needs an input of rank >= 3, got " + shape_string(x.shape()));
    std::vector<std::int64_t> in(x.shape().begin() + 2, x.shape().end());
    Window w = forward_window(attrs_, in, attrs_.kernel);
    Shape out{x.dim(0), x.dim(1)};
    out.insert(out.end(), w.out.begin(), w.out.end());
    bool want_indices = kind_ == PoolKind::kMax && ctx.output_count() > 1 && ctx.output_wanted(1);
    auto body = [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), out);
      std::int64_t* indices =
          want_indices ? ctx.allocate_output(1, onnx::TensorProto::INT64, out).mutable_data<std::int64_t>() : nullptr;
      std::int64_t planes = x.dim(0) * x.dim(1), isize = shape_size(w.in), osize = w.out_size();
      const T* px = x.data<T>();
      T* py = y.mutable_data<T>();
      parallel_ranges(ctx.pool(), planes, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(osize, 1)),
                      [&](std::int64_t p0, std::int64_t p1) {
                        for (std::int64_t p = p0; p < p1; ++p)
                          pool_plane<T>(px + p * isize, w, py + p * osize, indices ? indices + p * osize : nullptr,
                                        p * isize);
                      });
    };
    if (kind_ == PoolKind::kMax) {
      if (x.dtype() == onnx::TensorProto::INT8) body.template operator()<std::int8_t>();
      else if (x.dtype() == onnx::TensorProto::UINT8) body.template operator()<std::uint8_t>();
      else dispatch_float(x.dtype(), body);
    } else {
      dispatch_float(x.dtype(), body);
    }
  }

 private:
  // The common 2-D max/average case without the general odometers.
  template <typename T>
  void pool_plane_2d(const T* x, const Window& w, T* y) const {
    std::int64_t H = w.in[0], W = w.in[1], OH = w.out[0], OW = w.out[1], KH = w.kernel[0], KW = w.kernel[1];
    std::int64_t sh = w.strides[0], sw = w.strides[1], dh = w.dilations[0], dw = w.dilations[1];
    for (std::int64_t oh = 0; oh < OH; ++oh) {
      std::int64_t h0 = oh * sh - w.pad_begin[0];
      for (std::int64_t ow = 0; ow < OW; ++ow) {
        std::int64_t w0 = ow * sw - w.pad_begin[1];
        double acc = kind_ == PoolKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
        std::int64_t count = 0, padded = 0;
        for (std::int64_t kh = 0; kh < KH; ++kh) {
          std::int64_t ih = h0 + kh * dh;
          bool h_pad = ih >= -w.pad_begin[0] && ih < H + w.pad_end[0];
          for (std::int64_t kw = 0; kw < KW; ++kw) {
            std::int64_t iw = w0 + kw * dw;
            if (h_pad && iw >= -w.pad_begin[1] && iw < W + w.pad_end[1]) ++padded;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            double v = static_cast<double>(x[ih * W + iw]);
            ++count;
            if (kind_ == PoolKind::kMax) acc = v > acc ? v : acc;
            else acc += v;
          }
        }
        if (kind_ == PoolKind::kAverage)
          acc /= static_cast<double>(count_include_pad_ ? padded : std::max<std::int64_t>(count, 1));
        y[oh * OW + ow] = static_cast<T>(acc);
      }
    }
  }

  // 2-D max pooling of float32 planes, row by row: for each kernel tap the
  // valid output columns take a running maximum (vectorizable).
  static void max_plane_2d(const float* x, const Window& w, float* y) {
    std::int64_t H = w.in[0], W = w.in[1], OH = w.out[0], OW = w.out[1], KH = w.kernel[0], KW = w.kernel[1];
    std::int64_t sh = w.strides[0], sw = w.strides[1], dh = w.dilations[0], dw = w.dilations[1];
    for (std::int64_t oh = 0; oh < OH; ++oh) {
      float* row = y + oh * OW;
      std::fill(row, row + OW, -std::numeric_limits<float>::infinity());
      for (std::int64_t kh = 0; kh < KH; ++kh) {
        std::int64_t ih = oh * sh - w.pad_begin[0] + kh * dh;
        if (ih < 0 || ih >= H) continue;
        const float* xrow = x + ih * W;
        for (std::int64_t kw = 0; kw < KW; ++kw) {
          std::int64_t off = kw * dw - w.pad_begin[1];
          std::int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
          std::int64_t hi = W - 1 - off < 0 ? -1 : std::min(OW - 1, (W - 1 - off) / sw);
          for (std::int64_t ow = lo; ow <= hi; ++ow) {
            float v = xrow[ow * sw + off];
            row[ow] = v > row[ow] ? v : row[ow];
          }
        }
      }
    }
  }

  template <typename T>
  void pool_plane(const T* x, const Window& w, T* y, std::int64_t* indices, std::int64_t plane_offset) const {
    int d = w.dims();
    if constexpr (std::is_same_v<T, float>) {
      if (d == 2 && !indices && kind_ == PoolKind::kMax) {
        max_plane_2d(x, w, y);
        return;
      }
    }
    if (d == 2 && !indices && kind_ != PoolKind::kLp) {
      pool_plane_2d(x, w, y);
      return;
    }
    std::int64_t osize = w.out_size(), ksize = w.kernel_size();
    std::vector<std::int64_t> o(d, 0), k(d);
    for (std::int64_t op = 0; op < osize; ++op) {
      double acc = kind_ == PoolKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
      std::int64_t best = -1, count = 0, padded = 0;
      std::fill(k.begin(), k.end(), 0);
      for (std::int64_t kp = 0; kp < ksize; ++kp) {
        std::int64_t offset = 0, col_major = 0, col_stride = 1;
        bool inside = true, in_pads = true;
        for (int a = 0; a < d; ++a) {
          std::int64_t pos = o[a] * w.strides[a] - w.pad_begin[a] + k[a] * w.dilations[a];
          if (pos < 0 || pos >= w.in[a]) inside = false;
          if (pos < -w.pad_begin[a] || pos >= w.in[a] + w.pad_end[a]) in_pads = false;
          offset = offset * w.in[a] + pos;
          col_major += pos * col_stride;
          col_stride *= w.in[a];
        }
        if (in_pads) ++padded;
        if (inside) {
          double v = static_cast<double>(x[offset]);
          ++count;
          if (kind_ == PoolKind::kMax) {
            if (v > acc || best < 0) {
              acc = v;
              best = storage_order_ ? col_major : offset;
            }
          } else if (kind_ == PoolKind::kAverage) {
            acc += v;
          } else {
            acc += std::pow(std::fabs(v), p_);
          }
        }
        for (int a = d - 1; a >= 0; --a) {
          if (++k[a] < w.kernel[a]) break;
          k[a] = 0;
        }
      }
      if (kind_ == PoolKind::kAverage)
        acc /= static_cast<double>(count_include_pad_ ? padded : std::max<std::int64_t>(count, 1));
      if (kind_ == PoolKind::kLp) acc = std::pow(acc, 1.0 / p_);
      y[op] = static_cast<T>(acc);
      if (indices) indices[op] = plane_offset + best;
      for (int a = d - 1; a >= 0; --a) {
        if (++o[a] < w.out[a]) break;
        o[a] = 0;
      }
    }
  }

  PoolKind kind_;
  WindowAttrs attrs_;
  bool count_include_pad_;
  std::int64_t storage_order_;
  double p_;
};

template <PoolKind K>
class PoolOf : public Pool {
 public:
  explicit PoolOf(const NodeContext& n) : Pool(n, K) {}
};

// GlobalAveragePool / GlobalMaxPool / GlobalLpPool: one value per plane,
// summed in index order.
class GlobalPool : public Kernel {
 public:
  GlobalPool(const NodeContext& n, PoolKind kind) : kind_(kind), p_(static_cast<double>(n.attr_int("p", 2))) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) throw InputError("global pooling needs rank >= 2");
    Shape out = x.shape();
    for (std::size_t i = 2; i < out.size(); ++i) out[i] = 1;
    dispatch_float(x.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), out);
      std::int64_t planes = x.dim(0) * x.dim(1), size = dims_product(x.shape(), 2, x.rank());
      const T* px = x.data<T>();
      T* py = y.mutable_data<T>();
      parallel_ranges(ctx.pool(), planes,
                      std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(size, 1)),
                      [&](std::int64_t p0, std::int64_t p1) {
                        for (std::int64_t p = p0; p < p1; ++p) {
                          const T* v = px + p * size;
                          if (kind_ == PoolKind::kMax) {
                            T m = -std::numeric_limits<T>::infinity();
                            for (std::int64_t i = 0; i < size; ++i) m = v[i] > m ? v[i] : m;
                            py[p] = m;
                          } else if (kind_ == PoolKind::kAverage) {
                            T s = T(0);
                            for (std::int64_t i = 0; i < size; ++i) s += v[i];
                            py[p] = s / static_cast<T>(size);
                          } else {
                            double s = 0;
                            for (std::int64_t i = 0; i < size; ++i) s += std::pow(std::fabs(double(v[i])), p_);
                            py[p] = static_cast<T>(std::pow(s, 1.0 / p_));
                          }
                        }
                      });
    });
  }

 private:
  PoolKind kind_;
  double p_;
};

template <PoolKind K>
class GlobalPoolOf : public GlobalPool {
 public:
  explicit GlobalPoolOf(const NodeContext& n) : GlobalPool(n, K) {}
};

}  // namespace

void register_pooling(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "MaxPool", 1, top, make<PoolOf<PoolKind::kMax>>(), kFloatCompute);
  add(r, "AveragePool", 1, top, make<PoolOf<PoolKind::kAverage>>(), kFloatCompute);
  add(r, "LpPool", 2, top, make<PoolOf<PoolKind::kLp>>(), kFloatCompute);
  add(r, "GlobalAveragePool", 1, top, make<GlobalPoolOf<PoolKind::kAverage>>(), kFloatCompute);
  add(r, "GlobalMaxPool", 1, top, make<GlobalPoolOf<PoolKind::kMax>>(), kFloatCompute);
  add(r, "GlobalLpPool", 2, top, make<GlobalPoolOf<PoolKind::kLp>>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels

// GridSample (2-D: bilinear / nearest / bicubic, zeros / border / reflection
// padding), RoiAlign, MaxUnpool and Det.
#include <array>
#include <cmath>
#include <cstring>

#include "runtime/kernels/common.h"
#include "runtime/kernels/conv_geometry.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

class GridSample : public Kernel {
 public:
  explicit GridSample(const NodeContext& n)
      : align_corners_(n.attr_int("align_corners", 0) != 0),
        mode_(n.attr_string("mode", "bilinear")),
        padding_(n.attr_string("padding_mode", "zeros")) {
    if (mode_ != "bilinear" && mode_ != "nearest" && mode_ != "bicubic")
      n.unsupported("GridSample mode '" + mode_ + "'");
    if (padding_ != "zeros" && padding_ != "border" && padding_ != "reflection")
      n.fail("unknown padding_mode '" + padding_ + "'");
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& grid = ctx.input(1);
    if (x.rank() != 4 || grid.rank() != 4 || grid.dim(3) != 2)
      throw UnsupportedError("GridSample supports 2-D inputs only");
    std::int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), Ho = grid.dim(1), Wo = grid.dim(2);
    dispatch_float(x.dtype(), [&]<typename T>() {
      T* py = ctx.allocate_output(0, x.dtype(), {N, C, Ho, Wo}).template mutable_data<T>();
      const T* px = x.data<T>();
      const T* pg = grid.data<T>();
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t i = 0; i < Ho * Wo; ++i) {
          double gx = static_cast<double>(pg[(n * Ho * Wo + i) * 2]),
                 gy = static_cast<double>(pg[(n * Ho * Wo + i) * 2 + 1]);
          double sx = unnormalize(gx, W), sy = unnormalize(gy, H);
          for (std::int64_t c = 0; c < C; ++c) {
            const T* plane = px + (n * C + c) * H * W;
            py[(n * C + c) * Ho * Wo + i] = static_cast<T>(sample(plane, H, W, sx, sy));
          }
        }
    });
  }

 private:
  double unnormalize(double g, std::int64_t size) const {
    return align_corners_ ? (g + 1) / 2 * static_cast<double>(size - 1) : ((g + 1) * static_cast<double>(size) - 1) / 2;
  }
  // Reflects v into [lo, hi].
  static double reflect(double v, double lo, double hi) {
    double span = hi - lo;
    if (span <= 0) return lo;
    double d = std::fabs(v - lo);
    double flips = std::floor(d / span), extra = d - flips * span;
    return static_cast<std::int64_t>(flips) % 2 == 0 ? lo + extra : hi - extra;
  }
  double pad_coord(double v, std::int64_t size) const {
    if (padding_ == "border") return std::clamp(v, 0.0, static_cast<double>(size - 1));
    if (padding_ == "reflection") {
      v = align_corners_ ? reflect(v, 0, static_cast<double>(size - 1))
                         : reflect(v, -0.5, static_cast<double>(size) - 0.5);
      return std::clamp(v, 0.0, static_cast<double>(size - 1));
    }
    return v;
  }
  template <typename T>
  double at(const T* plane, std::int64_t H, std::int64_t W, std::int64_t y, std::int64_t x) const {
    if (padding_ != "zeros") {  // bicubic taps fall outside: pad each tap
      x = static_cast<std::int64_t>(pad_coord(static_cast<double>(x), W));
      y = static_cast<std::int64_t>(pad_coord(static_cast<double>(y), H));
    }
    if (x < 0 || x >= W || y < 0 || y >= H) return 0.0;
    return static_cast<double>(plane[y * W + x]);
  }
  template <typename T>
  double sample(const T* plane, std::int64_t H, std::int64_t W, double sx, double sy) const {
    if (mode_ == "bicubic") {
      double fx = std::floor(sx), fy = std::floor(sy);
      auto cx = cubic(sx - fx), cy = cubic(sy - fy);
      double acc = 0;
      for (int j = 0; j < 4; ++j) {
        double row = 0;
        for (int i = 0; i < 4; ++i)
          row += cx[i] * at(plane, H, W, static_cast<std::int64_t>(fy) - 1 + j, static_cast<std::int64_t>(fx) - 1 + i);
        acc += cy[j] * row;
      }
      return acc;
    }
    sx = pad_coord(sx, W);
    sy = pad_coord(sy, H);
    if (mode_ == "nearest")
      return at(plane, H, W, static_cast<std::int64_t>(std::nearbyint(sy)),
                static_cast<std::int64_t>(std::nearbyint(sx)));
    double x0 = std::floor(sx), y0 = std::floor(sy), ax = sx - x0, ay = sy - y0;
    auto ix = static_cast<std::int64_t>(x0), iy = static_cast<std::int64_t>(y0);
    return (1 - ay) * ((1 - ax) * at(plane, H, W, iy, ix) + ax * at(plane, H, W, iy, ix + 1)) +
           ay * ((1 - ax) * at(plane, H, W, iy + 1, ix) + ax * at(plane, H, W, iy + 1, ix + 1));
  }
  static std::array<double, 4> cubic(double t) {
    const double a = -0.75;
    auto near = [a](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
    auto far = [a](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
    return {far(t + 1), near(t), near(1 - t), far(2 - t)};
  }

  bool align_corners_;
  std::string mode_, padding_;
};

class MaxUnpool : public Kernel {
 public:
  explicit MaxUnpool(const NodeContext& n)
      : kernel_(n.attr_ints("kernel_shape")), pads_(n.attr_ints("pads")), strides_(n.attr_ints("strides")) {
    if (kernel_.empty()) n.fail("missing required attribute 'kernel_shape'");
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    auto idx = to_int64s(ctx.input(1));
    int d = x.rank() - 2;
    // Indices address the default output shape; a larger output_shape pads
    // each spatial dimension at its end.
    Shape natural = x.shape();
    for (int i = 0; i < d; ++i) {
      std::int64_t stride = strides_.empty() ? 1 : strides_[i];
      std::int64_t pb = pads_.empty() ? 0 : pads_[i], pe = pads_.empty() ? 0 : pads_[i + d];
      natural[i + 2] = (x.dim(i + 2) - 1) * stride + kernel_[i] - pb - pe;
    }
    Shape out = natural;
    if (ctx.has_input(2)) {
      auto s = to_int64s(ctx.input(2));
      out.assign(s.begin(), s.end());
      if (out.size() != natural.size()) throw InputError("output_shape has the wrong rank");
    }
    auto natural_strides = strides_of(natural), out_strides = strides_of(out);
    dispatch_numeric(x.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), out);
      std::memset(y.mutable_raw(), 0, y.bytes());
      for (std::int64_t i = 0; i < x.size(); ++i) {
        std::int64_t rest = idx[i], pos = 0;
        if (rest < 0 || rest >= shape_size(natural)) throw InputError("unpool index out of range");
        for (std::size_t a = 0; a < natural.size(); ++a) {
          std::int64_t coord = rest / natural_strides[a];
          rest %= natural_strides[a];
          if (coord >= out[a]) throw InputError("unpool index outside output_shape");
          pos += coord * out_strides[a];
        }
        y.mutable_data<T>()[pos] = x.data<T>()[i];
      }
    });
  }

 private:
  std::vector<std::int64_t> kernel_, pads_, strides_;
};

// Determinants of [..., M, M] by LU decomposition with partial pivoting, in double.
class Det : public Kernel {
 public:
  explicit Det(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2)) throw InputError("Det needs [..., M, M]");
    std::int64_t M = x.dim(x.rank() - 1), mats = x.size() / std::max<std::int64_t>(M * M, 1);
    Shape out(x.shape().begin(), x.shape().end() - 2);
    dispatch_float(x.dtype(), [&]<typename T>() {
      T* py = ctx.allocate_output(0, x.dtype(), out).template mutable_data<T>();
      std::vector<double> a(static_cast<std::size_t>(M * M));
      for (std::int64_t m = 0; m < mats; ++m) {
        for (std::int64_t i = 0; i < M * M; ++i) a[i] = static_cast<double>(x.data<T>()[m * M * M + i]);
        double det = 1;
        for (std::int64_t c = 0; c < M && det != 0; ++c) {
          std::int64_t p = c;
          for (std::int64_t r = c + 1; r < M; ++r)
            if (std::fabs(a[r * M + c]) > std::fabs(a[p * M + c])) p = r;
          if (a[p * M + c] == 0) {
            det = 0;
            break;
          }
          if (p != c) {
            for (std::int64_t k = 0; k < M; ++k) std::swap(a[p * M + k], a[c * M + k]);
            det = -det;
          }
          det *= a[c * M + c];
          for (std::int64_t r = c + 1; r < M; ++r) {
            double f = a[r * M + c] / a[c * M + c];
            for (std::int64_t k = c; k < M; ++k) a[r * M + k] -= f * a[c * M + k];
          }
        }
        py[m] = static_cast<T>(det);
      }
    });
  }
};

// RoiAlign: each output bin averages (or takes the max of) bilinear samples
// on a regular grid inside its part of the region.
class RoiAlign : public Kernel {
 public:
  explicit RoiAlign(const NodeContext& n)
      : mode_max_(n.attr_string("mode", "avg") == "max"),
        out_h_(n.attr_int("output_height", 1)),
        out_w_(n.attr_int("output_width", 1)),
        sampling_ratio_(n.attr_int("sampling_ratio", 0)),
        spatial_scale_(n.attr_float("spatial_scale", 1.0f)),
        half_pixel_(n.opset() >= 16 && n.attr_string("coordinate_transformation_mode", "half_pixel") == "half_pixel") {}

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& rois = ctx.input(1);
    auto batch = to_int64s(ctx.input(2));
    if (x.rank() != 4 || rois.rank() != 2 || rois.dim(1) != 4)
      throw InputError("RoiAlign needs X [N,C,H,W] and rois [R,4]");
    std::int64_t R = rois.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
    dispatch_float(x.dtype(), [&]<typename T>() {
      T* py = ctx.allocate_output(0, x.dtype(), {R, C, out_h_, out_w_}).template mutable_data<T>();
      const T* pr = rois.data<T>();
      double offset = half_pixel_ ? 0.5 : 0.0;
      for (std::int64_t r = 0; r < R; ++r) {
        double x1 = pr[r * 4] * spatial_scale_ - offset, y1 = pr[r * 4 + 1] * spatial_scale_ - offset;
        double x2 = pr[r * 4 + 2] * spatial_scale_ - offset, y2 = pr[r * 4 + 3] * spatial_scale_ - offset;
        double rw = x2 - x1, rh = y2 - y1;
        if (!half_pixel_) {
          rw = std::max(rw, 1.0);
          rh = std::max(rh, 1.0);
        }
        double bh = rh / static_cast<double>(out_h_), bw = rw / static_cast<double>(out_w_);
        std::int64_t gh = sampling_ratio_ > 0 ? sampling_ratio_ : static_cast<std::int64_t>(std::ceil(rh / out_h_));
        std::int64_t gw = sampling_ratio_ > 0 ? sampling_ratio_ : static_cast<std::int64_t>(std::ceil(rw / out_w_));
        double count = static_cast<double>(std::max<std::int64_t>(gh * gw, 1));
        if (batch[r] < 0 || batch[r] >= x.dim(0)) throw InputError("batch index out of range");
        for (std::int64_t c = 0; c < C; ++c) {
          const T* plane = x.data<T>() + (batch[r] * C + c) * H * W;
          for (std::int64_t ph = 0; ph < out_h_; ++ph)
            for (std::int64_t pw = 0; pw < out_w_; ++pw) {
              double acc = 0;
              bool any = false;
              for (std::int64_t iy = 0; iy < gh; ++iy)
                for (std::int64_t ix = 0; ix < gw; ++ix) {
                  double yy = y1 + ph * bh + (iy + 0.5) * bh / static_cast<double>(gh);
                  double xx = x1 + pw * bw + (ix + 0.5) * bw / static_cast<double>(gw);
                  double v = sample(plane, H, W, yy, xx);
                  if (mode_max_) {
                    acc = any ? std::max(acc, v) : v;
                    any = true;
                  } else {
                    acc += v;
                  }
                }
              py[((r * C + c) * out_h_ + ph) * out_w_ + pw] = static_cast<T>(mode_max_ ? acc : acc / count);
            }
        }
      }
    });
  }

 private:
  // Bilinear sample; in max mode the largest weighted corner, as ONNX Runtime does.
  template <typename T>
  double sample(const T* p, std::int64_t H, std::int64_t W, double y, double x) const {
    if (y < -1.0 || y > static_cast<double>(H) || x < -1.0 || x > static_cast<double>(W)) return 0.0;
    y = std::max(y, 0.0);
    x = std::max(x, 0.0);
    auto y0 = static_cast<std::int64_t>(y), x0 = static_cast<std::int64_t>(x);
    std::int64_t y1 = y0 + 1, x1 = x0 + 1;
    if (y0 >= H - 1) {
      y0 = y1 = H - 1;
      y = static_cast<double>(y0);
    }
    if (x0 >= W - 1) {
      x0 = x1 = W - 1;
      x = static_cast<double>(x0);
    }
    double ly = y - y0, lx = x - x0, hy = 1 - ly, hx = 1 - lx;
    double v1 = hy * hx * p[y0 * W + x0], v2 = hy * lx * p[y0 * W + x1], v3 = ly * hx * p[y1 * W + x0],
           v4 = ly * lx * p[y1 * W + x1];
    if (mode_max_) return std::max(std::max(v1, v2), std::max(v3, v4));
    return v1 + v2 + v3 + v4;
  }

  bool mode_max_;
  std::int64_t out_h_, out_w_, sampling_ratio_;
  float spatial_scale_;
  bool half_pixel_;
};

}  // namespace

void register_spatial(KernelRegistry& r) {
  add(r, "RoiAlign", 10, kMaxOnnxOpset, make<RoiAlign>(), kFloatCompute);
  add(r, "GridSample", 16, 19, make<GridSample>(), kFloatCompute);
  add(r, "MaxUnpool", 9, kMaxOnnxOpset, make<MaxUnpool>(), kFloatCompute);
  add(r, "Det", 11, kMaxOnnxOpset, make<Det>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels

// Resize (opset 10-19: nearest / linear / cubic, every coordinate
// transformation mode, axes and keep_aspect_ratio_policy; no antialias) and
// the older Upsample. Separable: one axis at a time, innermost first, like
// ONNX's reference implementation; weights in double.
#include <algorithm>
#include <array>
#include <cmath>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

struct ResizeAttrs {
  std::string mode = "nearest";
  std::string coordinate = "half_pixel";
  std::string nearest = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
  std::string aspect = "stretch";
  std::vector<std::int64_t> axes;
};

// Sample positions for one output index along one axis.
struct Taps {
  std::vector<std::int64_t> index;
  std::vector<double> weight;
  bool extrapolate = false;
};

std::array<double, 4> cubic_coeffs(double t, double a) {
  auto c = [a](double x) {  // Keys' kernel
    x = std::fabs(x);
    if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0.0;
  };
  return {c(t + 1), c(t), c(1 - t), c(2 - t)};
}

std::vector<Taps> make_taps(const ResizeAttrs& at, std::int64_t in, std::int64_t out, double scale, double roi_start,
                            double roi_end) {
  std::vector<Taps> taps(static_cast<std::size_t>(out));
  // With scales given, ONNX's reference measures the resized length as
  // scale * input length (not the truncated integer size).
  double resized = scale * static_cast<double>(in);
  for (std::int64_t x = 0; x < out; ++x) {
    double xr = static_cast<double>(x), pos;
    const std::string& cm = at.coordinate;
    if (cm == "half_pixel") {
      pos = (xr + 0.5) / scale - 0.5;
    } else if (cm == "half_pixel_symmetric") {
      double adjustment = static_cast<double>(out) / (scale * static_cast<double>(in));
      double center = static_cast<double>(in) / 2;
      pos = center * (1 - adjustment) + (xr + 0.5) / scale - 0.5;
    } else if (cm == "pytorch_half_pixel") {
      pos = out > 1 ? (xr + 0.5) / scale - 0.5 : 0.0;
    } else if (cm == "align_corners") {
      pos = resized == 1.0 ? 0.0 : xr * static_cast<double>(in - 1) / (resized - 1);
    } else if (cm == "tf_half_pixel_for_nn") {
      pos = (xr + 0.5) / scale;
    } else if (cm == "asymmetric") {
      pos = xr / scale;
    } else {  // tf_crop_and_resize
      pos = resized > 1 ? roi_start * static_cast<double>(in - 1) +
                              xr * (roi_end - roi_start) * static_cast<double>(in - 1) / (resized - 1)
                        : 0.5 * (roi_start + roi_end) * static_cast<double>(in - 1);
      if (pos < 0 || pos > static_cast<double>(in - 1)) {
        taps[x].extrapolate = true;
        continue;
      }
    }
    Taps& t = taps[x];
    auto clamp = [in](std::int64_t i) { return std::clamp<std::int64_t>(i, 0, in - 1); };
    if (at.mode == "nearest") {
      double r;
      const std::string& nm = at.nearest;
      if (nm == "floor") r = std::floor(pos);
      else if (nm == "ceil") r = std::ceil(pos);
      else if (nm == "round_prefer_ceil") r = std::floor(pos + 0.5);
      else r = std::ceil(pos - 0.5);  // round_prefer_floor
      t.index = {clamp(static_cast<std::int64_t>(r))};
      t.weight = {1.0};
    } else if (at.mode == "linear") {
      double f = std::floor(pos), frac = pos - f;
      auto i0 = static_cast<std::int64_t>(f);
      t.index = {clamp(i0), clamp(i0 + 1)};
      t.weight = {1 - frac, frac};
    } else {
      double f = std::floor(pos), frac = pos - f;
      auto i0 = static_cast<std::int64_t>(f);
      auto c = cubic_coeffs(frac, at.cubic_a);
      double total = 0;
      for (int k = 0; k < 4; ++k) {
        std::int64_t i = i0 - 1 + k;
        double w = c[k];
        if (at.exclude_outside && (i < 0 || i >= in)) w = 0;
        t.index.push_back(clamp(i));
        t.weight.push_back(w);
        total += w;
      }
      if (at.exclude_outside && total != 0)
        for (auto& w : t.weight) w /= total;
    }
  }
  return taps;
}

template <typename T>
Tensor resize_axis(const Tensor& x, int axis, std::int64_t out_len, const std::vector<Taps>& taps,
                   double extrapolation) {
  Shape s = x.shape();
  std::int64_t in_len = s[axis];
  s[axis] = out_len;
  Tensor y = Tensor::allocate(x.dtype(), s);
  std::int64_t outer = dims_product(x.shape(), 0, axis), inner = dims_product(x.shape(), axis + 1, x.rank());
  const T* px = x.data<T>();
  T* py = y.mutable_data<T>();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < out_len; ++j) {
      const Taps& t = taps[static_cast<std::size_t>(j)];
      T* dst = py + (o * out_len + j) * inner;
      if (t.extrapolate) {
        for (std::int64_t i = 0; i < inner; ++i) dst[i] = static_cast<T>(extrapolation);
        continue;
      }
      for (std::int64_t i = 0; i < inner; ++i) {
        double acc = 0;
        for (std::size_t k = 0; k < t.index.size(); ++k)
          acc += t.weight[k] * static_cast<double>(px[(o * in_len + t.index[k]) * inner + i]);
        if constexpr (std::is_integral_v<T>) dst[i] = static_cast<T>(std::nearbyint(acc));
        else dst[i] = static_cast<T>(acc);
      }
    }
  return y;
}

class Resize : public Kernel {
 public:
  explicit Resize(const NodeContext& n, bool upsample = false) : opset_(n.opset()), upsample_(upsample) {
    at_.mode = n.attr_string("mode", "nearest");
    if (at_.mode == "bilinear") at_.mode = "linear";  // Upsample-7 spelling
    if (at_.mode != "nearest" && at_.mode != "linear" && at_.mode != "cubic") n.fail("unknown mode '" + at_.mode + "'");
    at_.coordinate =
        upsample || n.opset() < 11 ? "asymmetric" : n.attr_string("coordinate_transformation_mode", "half_pixel");
    at_.nearest = n.opset() < 11 ? "round_prefer_floor" : n.attr_string("nearest_mode", "round_prefer_floor");
    if (upsample || n.opset() < 11) at_.nearest = "floor";
    at_.cubic_a = n.attr_float("cubic_coeff_a", -0.75f);
    at_.exclude_outside = n.attr_int("exclude_outside", 0) != 0;
    at_.extrapolation = n.attr_float("extrapolation_value", 0.0f);
    at_.aspect = n.attr_string("keep_aspect_ratio_policy", "stretch");
    at_.axes = n.attr_ints("axes");
    scales_attr_ = n.attr_floats("scales");
    if (n.attr_int("antialias", 0) != 0) n.unsupported("Resize with antialias is not supported");
    static const char* modes[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",  "align_corners",
                                  "asymmetric", "tf_crop_and_resize",   "tf_half_pixel_for_nn"};
    if (std::find(std::begin(modes), std::end(modes), at_.coordinate) == std::end(modes))
      n.fail("unknown coordinate_transformation_mode '" + at_.coordinate + "'");
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int rank = x.rank();
    std::vector<int> axes;
    for (auto a : at_.axes) axes.push_back(normalize_axis(a, rank));
    if (axes.empty())
      for (int d = 0; d < rank; ++d) axes.push_back(d);
    std::vector<double> scales(rank, 1.0);
    std::vector<std::int64_t> out = x.shape();
    std::vector<double> roi_start(rank, 0.0), roi_end(rank, 1.0);

    std::vector<float> given_scales;
    std::vector<std::int64_t> sizes;
    if (upsample_) {
      given_scales = opset_ < 9 ? scales_attr_ : float_values(ctx.input(1));
    } else if (opset_ < 11) {
      given_scales = float_values(ctx.input(1));
    } else {
      if (ctx.has_input(1) && ctx.input(1).size() > 0) {
        auto roi = float_values(ctx.input(1));
        if (roi.size() != 2 * axes.size()) throw InputError("roi must have 2 values per resized axis");
        for (std::size_t i = 0; i < axes.size(); ++i) {
          roi_start[axes[i]] = roi[i];
          roi_end[axes[i]] = roi[i + axes.size()];
        }
      }
      if (ctx.has_input(2) && ctx.input(2).size() > 0) given_scales = float_values(ctx.input(2));
      if (ctx.has_input(3) && ctx.input(3).size() > 0) sizes = to_int64s(ctx.input(3));
    }
    if (!sizes.empty()) {
      if (sizes.size() != axes.size()) throw InputError("sizes must have one value per resized axis");
      if (at_.aspect == "stretch") {
        for (std::size_t i = 0; i < axes.size(); ++i) {
          out[axes[i]] = sizes[i];
          scales[axes[i]] = static_cast<double>(sizes[i]) / static_cast<double>(x.dim(axes[i]));
        }
      } else {
        double s = at_.aspect == "not_larger" ? 1e300 : 0;
        for (std::size_t i = 0; i < axes.size(); ++i) {
          double r = static_cast<double>(sizes[i]) / static_cast<double>(x.dim(axes[i]));
          s = at_.aspect == "not_larger" ? std::min(s, r) : std::max(s, r);
        }
        for (int a : axes) {
          scales[a] = s;
          out[a] = static_cast<std::int64_t>(std::round(s * static_cast<double>(x.dim(a))));
        }
      }
    } else {
      if (given_scales.size() != axes.size())
        throw InputError("scales has " + std::to_string(given_scales.size()) + " values for " +
                         std::to_string(axes.size()) + " axes");
      for (std::size_t i = 0; i < axes.size(); ++i) {
        if (given_scales[i] <= 0) throw InputError("scales must be positive");
        scales[axes[i]] = given_scales[i];
        out[axes[i]] = static_cast<std::int64_t>(std::floor(static_cast<double>(x.dim(axes[i])) * given_scales[i]));
      }
    }

    auto body = [&]<typename T>() {
      Tensor cur = x;
      for (int a = rank - 1; a >= 0; --a) {
        bool identity = out[a] == x.dim(a) && scales[a] == 1.0 && at_.coordinate != "tf_crop_and_resize";
        if (identity) continue;
        auto taps = make_taps(at_, x.dim(a), out[a], scales[a], roi_start[a], roi_end[a]);
        cur = resize_axis<T>(cur, a, out[a], taps, at_.extrapolation);
      }
      ctx.set_output(0, cur.defined() && cur.raw() == x.raw() ? x.clone() : cur);
    };
    dispatch_numeric(x.dtype(), body);
  }

 private:
  static std::vector<float> float_values(const Tensor& t) {
    std::vector<float> v(static_cast<std::size_t>(t.size()));
    dispatch_float(t.dtype(), [&]<typename T>() {
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(t.data<T>()[i]);
    });
    return v;
  }

  std::int64_t opset_;
  bool upsample_;
  ResizeAttrs at_;
  std::vector<float> scales_attr_;
};

class Upsample : public Resize {
 public:
  explicit Upsample(const NodeContext& n) : Resize(n, true) {}
};

}  // namespace

void register_resize(KernelRegistry& r) {
  add(r, "Resize", 10, kMaxOnnxOpset, make<Resize>(), kFloatCompute);
  add(r, "Upsample", 7, 9, make<Upsample>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels

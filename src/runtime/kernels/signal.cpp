// Audio front ends (opset 17): DFT, STFT, HannWindow, HammingWindow,
// BlackmanWindow, MelWeightMatrix. The DFT is computed directly from a
// twiddle table in double precision (O(n^2) per line).
#include <cmath>
#include <numbers>

#include "runtime/convert.h"
#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

// out[k] = sum_n in[n] * exp(-+2 pi i k n / N) for k < out_len; in has `len` complex samples (zero padded to N).
void dft_line(const double* re, const double* im, std::int64_t len, std::int64_t N, std::int64_t out_len, bool inverse,
              const std::vector<double>& cos_t, const std::vector<double>& sin_t, double* out_re, double* out_im) {
  double sign = inverse ? 1.0 : -1.0;
  for (std::int64_t k = 0; k < out_len; ++k) {
    double sr = 0, si = 0;
    for (std::int64_t n = 0; n < std::min(len, N); ++n) {
      std::int64_t idx = (k * n) % N;
      double c = cos_t[idx], s = sign * sin_t[idx];
      sr += re[n] * c - im[n] * s;
      si += re[n] * s + im[n] * c;
    }
    if (inverse) {
      sr /= static_cast<double>(N);
      si /= static_cast<double>(N);
    }
    out_re[k] = sr;
    out_im[k] = si;
  }
}

void twiddles(std::int64_t N, std::vector<double>& c, std::vector<double>& s) {
  c.resize(static_cast<std::size_t>(N));
  s.resize(static_cast<std::size_t>(N));
  for (std::int64_t i = 0; i < N; ++i) {
    double a = 2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(N);
    c[i] = std::cos(a);
    s[i] = std::sin(a);
  }
}

Tensor to_double(const Tensor& t) { return convert(t, onnx::TensorProto::DOUBLE); }

class DFT : public Kernel {
 public:
  explicit DFT(const NodeContext& n)
      : axis_(n.attr_int("axis", 1)),
        inverse_(n.attr_int("inverse", 0) != 0),
        onesided_(n.attr_int("onesided", 0) != 0) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2 || (x.shape().back() != 1 && x.shape().back() != 2))
      throw InputError("DFT input must end in a dimension of 1 (real) or 2 (complex)");
    int axis = normalize_axis(axis_, x.rank() - 1);
    std::int64_t len = x.dim(axis);
    std::int64_t N = ctx.has_input(1) ? static_cast<std::int64_t>(scalar_value(ctx.input(1))) : len;
    if (N <= 0) throw InputError("dft_length must be positive");
    std::int64_t out_len = onesided_ ? N / 2 + 1 : N;
    bool complex_in = x.shape().back() == 2;
    Shape out = x.shape();
    out[axis] = out_len;
    out.back() = 2;
    Tensor xd = to_double(x);
    Tensor yd = Tensor::allocate(onnx::TensorProto::DOUBLE, out);
    std::int64_t outer = dims_product(x.shape(), 0, axis), inner = dims_product(x.shape(), axis + 1, x.rank() - 1);
    std::vector<double> c, s;
    twiddles(N, c, s);
    std::vector<double> re(static_cast<std::size_t>(len)), im(static_cast<std::size_t>(len)),
        ore(static_cast<std::size_t>(out_len)), oim(static_cast<std::size_t>(out_len));
    std::int64_t ch = x.shape().back();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        for (std::int64_t n = 0; n < len; ++n) {
          const double* p = xd.data<double>() + ((o * len + n) * inner + i) * ch;
          re[n] = p[0];
          im[n] = complex_in ? p[1] : 0.0;
        }
        dft_line(re.data(), im.data(), len, N, out_len, inverse_, c, s, ore.data(), oim.data());
        for (std::int64_t k = 0; k < out_len; ++k) {
          double* q = yd.mutable_data<double>() + ((o * out_len + k) * inner + i) * 2;
          q[0] = ore[k];
          q[1] = oim[k];
        }
      }
    ctx.set_output(0, convert(yd, x.dtype()));
  }

 private:
  std::int64_t axis_;
  bool inverse_, onesided_;
};

class STFT : public Kernel {
 public:
  explicit STFT(const NodeContext& n) : onesided_(n.attr_int("onesided", 1) != 0) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 3 || (x.dim(2) != 1 && x.dim(2) != 2))
      throw InputError("STFT signal must be [batch, length, 1 or 2]");
    std::int64_t step = static_cast<std::int64_t>(scalar_value(ctx.input(1)));
    const Tensor* window = ctx.optional_input(2);
    std::int64_t frame =
        ctx.has_input(3) ? static_cast<std::int64_t>(scalar_value(ctx.input(3))) : (window ? window->size() : 0);
    if (frame <= 0 || step <= 0) throw InputError("STFT needs a positive frame_step and frame_length (or a window)");
    if (window && window->size() != frame) throw InputError("window length differs from frame_length");
    std::int64_t B = x.dim(0), L = x.dim(1), ch = x.dim(2);
    if (L < frame) throw InputError("signal is shorter than one frame");
    std::int64_t frames = (L - frame) / step + 1, bins = onesided_ ? frame / 2 + 1 : frame;
    Tensor xd = to_double(x);
    Tensor wd = window ? to_double(*window) : Tensor();
    Tensor yd = Tensor::allocate(onnx::TensorProto::DOUBLE, {B, frames, bins, 2});
    std::vector<double> c, s, re(static_cast<std::size_t>(frame)), im(static_cast<std::size_t>(frame)),
        ore(static_cast<std::size_t>(bins)), oim(static_cast<std::size_t>(bins));
    twiddles(frame, c, s);
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t f = 0; f < frames; ++f) {
        for (std::int64_t n = 0; n < frame; ++n) {
          const double* p = xd.data<double>() + (b * L + f * step + n) * ch;
          double w = window ? wd.data<double>()[n] : 1.0;
          re[n] = p[0] * w;
          im[n] = ch == 2 ? p[1] * w : 0.0;
        }
        dft_line(re.data(), im.data(), frame, frame, bins, false, c, s, ore.data(), oim.data());
        for (std::int64_t k = 0; k < bins; ++k) {
          double* q = yd.mutable_data<double>() + ((b * frames + f) * bins + k) * 2;
          q[0] = ore[k];
          q[1] = oim[k];
        }
      }
    ctx.set_output(0, convert(yd, x.dtype()));
  }

 private:
  bool onesided_;
};

enum class WindowKind { kHann, kHamming, kBlackman };

template <WindowKind K>
class WindowOp : public Kernel {
 public:
  explicit WindowOp(const NodeContext& n)
      : dtype_(static_cast<DataType>(n.attr_int("output_datatype", onnx::TensorProto::FLOAT))),
        periodic_(n.attr_int("periodic", 1) != 0) {}
  void run(KernelContext& ctx) const override {
    auto size = static_cast<std::int64_t>(scalar_value(ctx.input(0)));
    if (size < 0) throw InputError("window size is negative");
    Tensor w = Tensor::allocate(onnx::TensorProto::DOUBLE, {size});
    double N = static_cast<double>(periodic_ ? size : size - 1);
    for (std::int64_t i = 0; i < size; ++i) {
      double a = 2 * std::numbers::pi * static_cast<double>(i) / N;
      double v;
      if constexpr (K == WindowKind::kHann) v = 0.5 - 0.5 * std::cos(a);
      else if constexpr (K == WindowKind::kHamming) v = 25.0 / 46 - (1 - 25.0 / 46) * std::cos(a);
      else v = 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2 * a);
      w.mutable_data<double>()[i] = v;
    }
    ctx.set_output(0, convert(w, dtype_));
  }

 private:
  DataType dtype_;
  bool periodic_;
};

// Triangular filters between mel-spaced edges (mel(f) = 2595 log10(1 + f/700)),
// each peaking at 1, mapped onto onesided DFT bins.
class MelWeightMatrix : public Kernel {
 public:
  explicit MelWeightMatrix(const NodeContext& n)
      : dtype_(static_cast<DataType>(n.attr_int("output_datatype", onnx::TensorProto::FLOAT))) {}
  void run(KernelContext& ctx) const override {
    auto mel_bins = static_cast<std::int64_t>(scalar_value(ctx.input(0)));
    auto dft_length = static_cast<std::int64_t>(scalar_value(ctx.input(1)));
    auto sample_rate = static_cast<std::int64_t>(scalar_value(ctx.input(2)));
    double lower = scalar_value(ctx.input(3)), upper = scalar_value(ctx.input(4));
    std::int64_t spectrum_bins = dft_length / 2 + 1;
    auto mel = [](double f) { return 2595 * std::log10(1 + f / 700); };
    double low_mel = mel(lower), high_mel = mel(upper);
    std::int64_t edges = mel_bins + 2;
    double step = (high_mel - low_mel) / static_cast<double>(edges);
    std::vector<std::int64_t> bin(static_cast<std::size_t>(edges));
    for (std::int64_t i = 0; i < edges; ++i) {
      double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + low_mel) / 2595) - 1);
      bin[i] = static_cast<std::int64_t>(
          std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate)));
    }
    Tensor w = Tensor::zeros(onnx::TensorProto::DOUBLE, {spectrum_bins, mel_bins});
    double* p = w.mutable_data<double>();
    auto at = [&](std::int64_t j, std::int64_t i) -> double& {
      if (j < 0 || j >= spectrum_bins) throw InputError("mel filter edge outside the spectrum");
      return p[j * mel_bins + i];
    };
    for (std::int64_t i = 0; i < mel_bins; ++i) {
      std::int64_t left = bin[i], center = bin[i + 1], right = bin[i + 2];
      if (center == left) at(center, i) = 1;
      else
        for (std::int64_t j = left; j <= center; ++j)
          at(j, i) = static_cast<double>(j - left) / static_cast<double>(center - left);
      if (right > center)
        for (std::int64_t j = center; j < right; ++j)
          at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - center);
    }
    ctx.set_output(0, convert(w, dtype_));
  }

 private:
  DataType dtype_;
};

}  // namespace

void register_signal(KernelRegistry& r) {
  add(r, "DFT", 17, 19, make<DFT>(), kFloatCompute);
  add(r, "STFT", 17, kMaxOnnxOpset, make<STFT>(), kFloatCompute);
  add(r, "HannWindow", 17, kMaxOnnxOpset, make<WindowOp<WindowKind::kHann>>());
  add(r, "HammingWindow", 17, kMaxOnnxOpset, make<WindowOp<WindowKind::kHamming>>());
  add(r, "BlackmanWindow", 17, kMaxOnnxOpset, make<WindowOp<WindowKind::kBlackman>>());
  add(r, "MelWeightMatrix", 17, kMaxOnnxOpset, make<MelWeightMatrix>());
}

}  // namespace winml::runtime::kernels

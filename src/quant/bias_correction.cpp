#include "quant/bias_correction.h"

#include <algorithm>
#include <cmath>

namespace winml::quant {

namespace {

// Conv weight [M, C/group, k...]: output m reads input channels of its group.
std::vector<double> conv_shift(const PlannedCorrection& c, const std::vector<float>& w, const std::vector<float>& wq,
                               const std::vector<std::int64_t>& dims, const std::vector<double>& mu) {
  if (dims.size() < 2) return {};
  std::int64_t m = dims[0], cg = dims[1], k = 1;
  for (std::size_t i = 2; i < dims.size(); ++i) k *= dims[i];
  if (c.group < 1 || m % c.group || static_cast<std::int64_t>(mu.size()) != cg * c.group) return {};
  std::vector<double> shift(static_cast<std::size_t>(m), 0.0);
  for (std::int64_t o = 0; o < m; ++o) {
    std::int64_t g = o / (m / c.group);
    double s = 0;
    for (std::int64_t ci = 0; ci < cg; ++ci) {
      double dw = 0;
      for (std::int64_t j = 0; j < k; ++j) {
        auto idx = static_cast<std::size_t>((o * cg + ci) * k + j);
        dw += static_cast<double>(wq[idx]) - static_cast<double>(w[idx]);
      }
      s += dw * mu[static_cast<std::size_t>(g * cg + ci)];
    }
    shift[static_cast<std::size_t>(o)] = s;
  }
  return shift;
}

// Gemm B as [K, N] (or [N, K] with transB), MatMul W as [K, N].
std::vector<double> matrix_shift(const PlannedCorrection& c, const std::vector<float>& w, const std::vector<float>& wq,
                                 const std::vector<std::int64_t>& dims, const std::vector<double>& mu) {
  if (dims.size() != 2) return {};
  bool by_row = c.kind == PlannedCorrection::Kind::kGemm && c.trans_b;
  std::int64_t kdim = by_row ? dims[1] : dims[0], n = by_row ? dims[0] : dims[1];
  if (static_cast<std::int64_t>(mu.size()) != kdim) return {};
  std::vector<double> shift(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t kk = 0; kk < kdim; ++kk)
    for (std::int64_t j = 0; j < n; ++j) {
      auto idx = static_cast<std::size_t>(by_row ? j * kdim + kk : kk * n + j);
      shift[static_cast<std::size_t>(j)] +=
          (static_cast<double>(wq[idx]) - static_cast<double>(w[idx])) * mu[static_cast<std::size_t>(kk)];
    }
  for (auto& v : shift) v *= c.alpha;
  return shift;
}

}  // namespace

std::vector<double> output_shift(const PlannedCorrection& c, const std::vector<float>& w,
                                 const std::vector<float>& w_quantized, const std::vector<std::int64_t>& dims,
                                 const std::vector<double>& input_mean) {
  if (w.size() != w_quantized.size()) return {};
  if (!std::all_of(input_mean.begin(), input_mean.end(), [](double x) { return std::isfinite(x); })) return {};
  return c.kind == PlannedCorrection::Kind::kConv ? conv_shift(c, w, w_quantized, dims, input_mean)
                                                  : matrix_shift(c, w, w_quantized, dims, input_mean);
}

}  // namespace winml::quant

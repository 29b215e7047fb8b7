#include "quant/calibration/range_methods.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "base/error.h"

namespace winml::quant {

TensorRange minmax_range(float min, float max, bool symmetric) {
  if (!symmetric) return {min, max};
  float m = std::max(std::fabs(min), std::fabs(max));
  return {-m, m};
}

namespace {

TensorRange clamp_to_observed(TensorRange r, const Histogram& h) {
  r.lo = std::max(r.lo, h.min());
  r.hi = std::min(r.hi, h.max());
  return r;
}

// First index whose cumulative share reaches `target` (numpy searchsorted, side left).
std::size_t first_reaching(const std::vector<double>& cdf, double target) {
  return static_cast<std::size_t>(std::lower_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
}

}  // namespace

TensorRange percentile_range(const Histogram& h, double percentile) {
  if (h.empty()) return {};
  if (percentile < 0 || percentile > 100) throw BuildError("percentile must be within [0, 100]");
  const auto& counts = h.counts();
  double total = static_cast<double>(h.total());
  std::vector<double> cdf(counts.size());
  double run = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) cdf[i] = (run += static_cast<double>(counts[i]) / total);
  auto edge = [&](std::size_t i) { return static_cast<float>(h.edge(std::min(i, counts.size()))); };
  TensorRange r;
  if (h.mode() == Histogram::Mode::kAbsolute) {
    float e = edge(first_reaching(cdf, percentile / 100.0));
    r = {-e, e};
  } else {
    double cut = (100.0 - percentile) / 200.0;
    r = {edge(first_reaching(cdf, cut)), edge(first_reaching(cdf, 1.0 - cut))};
  }
  return clamp_to_observed(r, h);
}

namespace {

// Replaces zeros by eps, taking the mass from the non-zero entries; false if
// all are zero.
bool smooth(std::vector<double>& p, double eps = 1e-4) {
  std::size_t zeros = static_cast<std::size_t>(std::count(p.begin(), p.end(), 0.0));
  std::size_t nonzeros = p.size() - zeros;
  if (nonzeros == 0) return false;
  double eps1 = eps * static_cast<double>(zeros) / static_cast<double>(nonzeros);
  for (auto& v : p) v = v == 0 ? eps : v - eps1;
  for (double v : p)
    if (v <= 0) return false;
  return true;
}

// KL(p || q) of the normalised distributions (scipy.stats.entropy).
double kl_divergence(const std::vector<double>& p, const std::vector<double>& q) {
  double sp = 0, sq = 0;
  for (double v : p) sp += v;
  for (double v : q) sq += v;
  double d = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    double pi = p[i] / sp, qi = q[i] / sq;
    if (pi > 0) d += pi * std::log(pi / qi);
  }
  return d;
}

}  // namespace

TensorRange entropy_range(const Histogram& h, std::int64_t num_quantized_bins) {
  if (h.empty()) return {};
  if (h.mode() != Histogram::Mode::kSigned) throw BuildError("the entropy method needs a signed histogram");
  const auto& hist = h.counts();
  const std::size_t num_bins = hist.size();
  const std::size_t zero_bin = num_bins / 2;
  const auto nq = static_cast<std::size_t>(num_quantized_bins);
  const std::size_t half_q = nq / 2;
  if (nq < 2 || half_q > zero_bin) {  // too few bins to search: the whole observed range
    return clamp_to_observed({static_cast<float>(h.edge(0)), static_cast<float>(h.edge(num_bins))}, h);
  }
  std::vector<std::uint64_t> prefix(num_bins + 1, 0);
  for (std::size_t i = 0; i < num_bins; ++i) prefix[i + 1] = prefix[i] + hist[i];

  double best = std::numeric_limits<double>::infinity();
  std::size_t best_start = 0, best_end = num_bins;
  std::vector<double> p, q;
  for (std::size_t i = half_q; i <= zero_bin; ++i) {
    std::size_t start = zero_bin - i;
    std::size_t end = std::min(zero_bin + i + 1, num_bins);
    std::size_t len = end - start;
    // Reference p: the clipped slice with the outliers folded into its ends.
    p.assign(len, 0.0);
    for (std::size_t k = 0; k < len; ++k) p[k] = static_cast<double>(hist[start + k]);
    p.front() += static_cast<double>(prefix[start]);
    p.back() += static_cast<double>(prefix[num_bins] - prefix[end]);
    // Candidate q: the slice merged into nq bins (the last takes the
    // remainder), each spread evenly over the non-zero positions of p.
    std::size_t merged = len / nq;
    q.assign(len, 0.0);
    for (std::size_t b = 0; b < nq; ++b) {
      std::size_t s = b * merged, e = b + 1 == nq ? len : s + merged;
      double sum = static_cast<double>(prefix[start + e] - prefix[start + s]);
      // ONNX Runtime spreads only over the first `merged` positions of the
      // last bin; the remainder positions keep q = 0 (smoothed below).
      std::size_t spread_end = s + merged;
      std::size_t nonzero = 0;
      for (std::size_t k = s; k < spread_end; ++k) nonzero += p[k] != 0;
      if (nonzero == 0) continue;
      // Integer division, as the reference stores q in an int64 array.
      double share = std::floor(sum / static_cast<double>(nonzero));
      for (std::size_t k = s; k < spread_end; ++k) q[k] = share;
    }
    double d = (smooth(p) && smooth(q)) ? kl_divergence(p, q) : std::numeric_limits<double>::infinity();
    if (d < best) best = d, best_start = start, best_end = end;
  }
  return clamp_to_observed({static_cast<float>(h.edge(best_start)), static_cast<float>(h.edge(best_end))}, h);
}

}  // namespace winml::quant

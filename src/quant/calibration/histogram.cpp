#include "quant/calibration/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/error.h"
#include "quant/calibration/reduce.h"

namespace winml::quant {

Histogram::Histogram(Mode mode, std::int64_t num_bins, std::int64_t max_bins)
    : mode_(mode), num_bins_(static_cast<std::size_t>(num_bins)) {
  if (num_bins < 2) throw BuildError("a calibration histogram needs at least 2 bins");
  max_bins_ = max_bins > 0 ? static_cast<std::size_t>(max_bins) : std::max<std::size_t>(num_bins_ * 8, 16384);
}

double Histogram::stride() const {
  double width = mode_ == Mode::kSigned ? 2.0 * threshold_ : threshold_;
  return counts_.empty() ? 0.0 : width / static_cast<double>(counts_.size());
}

std::uint64_t Histogram::total() const {
  std::uint64_t n = 0;
  for (auto c : counts_) n += c;
  return n;
}

void Histogram::add(std::span<const float> values, const ParallelFor& parallel) {
  MinMax m = min_max(values, parallel);
  if (!m.any) return;
  float lo = m.min, hi = m.max;
  double reach = std::max(std::fabs(double(lo)), std::fabs(double(hi)));
  if (!std::isfinite(reach)) reach = std::numeric_limits<float>::max();
  if (empty_) {
    min_ = lo, max_ = hi, empty_ = false;
    threshold_ = reach;
    counts_.assign(num_bins_, 0);
  } else {
    min_ = std::min(min_, lo), max_ = std::max(max_, hi);
    if (reach > threshold_) grow_to(reach);
  }
  bin(values, parallel);
}

void Histogram::grow_to(double needed) {
  if (threshold_ == 0) {  // everything so far was 0: it stays in the middle (or first) bin
    std::vector<std::uint64_t> old = std::move(counts_);
    counts_.assign(old.size(), 0);
    threshold_ = needed;
    std::size_t zero_bin = mode_ == Mode::kSigned ? counts_.size() / 2 : 0;
    for (auto c : old) counts_[zero_bin] += c;
    return;
  }
  // Whole bins of the current width are added on the open side(s), so old bins
  // map one to one.
  double s = stride();
  auto extra = static_cast<std::size_t>(std::floor((needed - threshold_) / s)) + 1;
  std::size_t grown = counts_.size() + (mode_ == Mode::kSigned ? 2 * extra : extra);
  if (grown > max_bins_) {
    rebin(needed, num_bins_);
    return;
  }
  std::vector<std::uint64_t> counts(grown, 0);
  std::size_t offset = mode_ == Mode::kSigned ? extra : 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) counts[i + offset] = counts_[i];
  counts_ = std::move(counts);
  threshold_ += static_cast<double>(extra) * s;
}

void Histogram::rebin(double new_threshold, std::size_t new_bins) {
  // Each old bin's count moves to the new bin holding its centre.
  std::vector<std::uint64_t> counts(new_bins, 0);
  double old_low = low_edge(), old_stride = stride();
  double new_low = mode_ == Mode::kSigned ? -new_threshold : 0.0;
  double new_stride = (mode_ == Mode::kSigned ? 2.0 : 1.0) * new_threshold / static_cast<double>(new_bins);
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (!counts_[i]) continue;
    double centre = old_low + (static_cast<double>(i) + 0.5) * old_stride;
    auto j = static_cast<std::int64_t>(std::floor((centre - new_low) / new_stride));
    j = std::clamp<std::int64_t>(j, 0, static_cast<std::int64_t>(new_bins) - 1);
    counts[static_cast<std::size_t>(j)] += counts_[i];
  }
  counts_ = std::move(counts);
  threshold_ = new_threshold;
}

void Histogram::bin(std::span<const float> values, const ParallelFor& parallel) {
  std::int64_t chunks = chunk_count(values.size());
  if (chunks <= 1 || !parallel) {
    bin_chunk(values, counts_);
    return;
  }
  // Per-chunk counts, added up in chunk order.
  std::vector<std::vector<std::uint64_t>> parts(static_cast<std::size_t>(chunks));
  parallel(chunks, [&](std::int64_t i) {
    std::size_t begin = static_cast<std::size_t>(i * kChunk);
    auto& part = parts[static_cast<std::size_t>(i)];
    part.assign(counts_.size(), 0);
    bin_chunk(values.subspan(begin, std::min<std::size_t>(kChunk, values.size() - begin)), part);
  });
  for (const auto& part : parts)
    for (std::size_t b = 0; b < counts_.size(); ++b) counts_[b] += part[b];
}

void Histogram::bin_chunk(std::span<const float> values, std::vector<std::uint64_t>& counts) const {
  const auto n = static_cast<std::int64_t>(counts.size());
  const double low = low_edge();
  const double width = mode_ == Mode::kSigned ? 2.0 * threshold_ : threshold_;
  if (width <= 0) {  // all values are zero so far
    std::size_t zero_bin = mode_ == Mode::kSigned ? counts.size() / 2 : 0;
    for (float v : values)
      if (!std::isnan(v)) ++counts[zero_bin];
    return;
  }
  const double norm = static_cast<double>(n) / width;
  const std::int64_t last = n - 1;
  std::uint64_t* c = counts.data();
  // Every finite value is within [low, low + width] (the range grew to hold
  // it), so truncation is floor; the clamp catches rounding at the top edge.
  // NaN and infinities are not counted.
  constexpr float kMax = std::numeric_limits<float>::max();
  if (mode_ == Mode::kAbsolute) {
    for (float v : values) {
      if (!(std::fabs(v) <= kMax)) continue;
      auto i = static_cast<std::int64_t>((std::fabs(static_cast<double>(v)) - low) * norm);
      ++c[i < 0 ? 0 : (i > last ? last : i)];
    }
  } else {
    for (float v : values) {
      if (!(std::fabs(v) <= kMax)) continue;
      auto i = static_cast<std::int64_t>((static_cast<double>(v) - low) * norm);
      ++c[i < 0 ? 0 : (i > last ? last : i)];
    }
  }
}

}  // namespace winml::quant

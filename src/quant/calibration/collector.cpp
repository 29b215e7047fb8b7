#include "quant/calibration/collector.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace winml::quant {

CalibrationMethod parse_calibration_method(const std::string& name) {
  if (name == "minmax") return CalibrationMethod::kMinMax;
  if (name == "percentile") return CalibrationMethod::kPercentile;
  if (name == "entropy") return CalibrationMethod::kEntropy;
  throw BuildError("unknown calibration method '" + name + "' (expected minmax, percentile or entropy)");
}

RangeCollector::RangeCollector(const CalibrationOptions& options) : options_(options) {
  if (options.method == CalibrationMethod::kPercentile)
    histogram_.emplace(options.symmetric ? Histogram::Mode::kAbsolute : Histogram::Mode::kSigned, options.num_bins);
  else if (options.method == CalibrationMethod::kEntropy)
    histogram_.emplace(Histogram::Mode::kSigned, options.num_bins);
}

void RangeCollector::add(std::span<const float> values) {
  if (histogram_) {
    histogram_->add(values);
    return;
  }
  for (float v : values) {
    if (std::isnan(v)) continue;
    if (!seen_) min_ = max_ = v, seen_ = true;
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
  }
}

bool RangeCollector::empty() const { return histogram_ ? histogram_->empty() : !seen_; }

TensorRange RangeCollector::range() const {
  switch (options_.method) {
    case CalibrationMethod::kMinMax: return minmax_range(min_, max_, options_.symmetric);
    case CalibrationMethod::kPercentile: return percentile_range(*histogram_, options_.percentile);
    case CalibrationMethod::kEntropy: return entropy_range(*histogram_, options_.num_quantized_bins);
  }
  return {};
}

void ChannelMean::add(std::span<const float> values, std::span<const std::int64_t> shape) {
  if (shape.empty()) return;
  auto rank = static_cast<std::int64_t>(shape.size());
  std::int64_t axis = axis_ < 0 ? rank + axis_ : axis_;
  if (axis < 0 || axis >= rank) return;
  std::int64_t outer = 1, inner = 1, channels = shape[static_cast<std::size_t>(axis)];
  for (std::int64_t i = 0; i < axis; ++i) outer *= shape[static_cast<std::size_t>(i)];
  for (std::int64_t i = axis + 1; i < rank; ++i) inner *= shape[static_cast<std::size_t>(i)];
  if (static_cast<std::size_t>(outer * channels * inner) != values.size()) return;
  if (sums_.empty()) sums_.assign(static_cast<std::size_t>(channels), 0.0);
  if (static_cast<std::int64_t>(sums_.size()) != channels) return;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < channels; ++c) {
      const float* p = values.data() + (o * channels + c) * inner;
      double s = 0;
      for (std::int64_t i = 0; i < inner; ++i) s += p[i];
      sums_[static_cast<std::size_t>(c)] += s;
    }
  count_ += static_cast<std::uint64_t>(outer * inner);
}

std::vector<double> ChannelMean::means() const {
  std::vector<double> m(sums_.size(), 0.0);
  for (std::size_t c = 0; c < m.size() && count_; ++c) m[c] = sums_[c] / static_cast<double>(count_);
  return m;
}

CalibrationStats::CalibrationStats(const CalibrationOptions& options, const std::vector<std::string>& tensors) {
  for (const auto& t : tensors) collectors_.emplace(t, RangeCollector(options));
}

void CalibrationStats::add(const std::string& name, std::span<const float> values) {
  auto it = collectors_.find(name);
  if (it != collectors_.end()) it->second.add(values);
}

std::map<std::string, TensorRange> CalibrationStats::ranges() const {
  std::map<std::string, TensorRange> r;
  for (const auto& [name, c] : collectors_)
    if (!c.empty()) r.emplace(name, c.range());
  return r;
}

std::vector<std::string> CalibrationStats::unobserved() const {
  std::vector<std::string> r;
  for (const auto& [name, c] : collectors_)
    if (c.empty()) r.push_back(name);
  return r;
}

}  // namespace winml::quant

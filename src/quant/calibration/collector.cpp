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

#include "quant/calibration/collector.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "base/error.h"
#include "quant/calibration/reduce.h"
#include "runtime/vector_math.h"

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

void RangeCollector::add(std::span<const float> values, const ParallelFor& parallel) {
  if (histogram_) {
    histogram_->add(values, parallel);
    return;
  }
  add(min_max(values, parallel));
}

void RangeCollector::add(const MinMax& m) {
  if (histogram_) throw std::logic_error("a histogram needs the values, not their range");
  if (!m.any) return;
  min_ = seen_ ? std::min(min_, m.min) : m.min;
  max_ = seen_ ? std::max(max_, m.max) : m.max;
  seen_ = true;
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

std::optional<ChannelSums> channel_sums(std::span<const float> values, std::span<const std::int64_t> shape,
                                        std::int64_t axis, const ParallelFor& parallel, MinMax* range) {
  if (shape.empty()) return std::nullopt;
  auto rank = static_cast<std::int64_t>(shape.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  std::int64_t outer = 1, inner = 1, channels = shape[static_cast<std::size_t>(axis)];
  for (std::int64_t i = 0; i < axis; ++i) outer *= shape[static_cast<std::size_t>(i)];
  for (std::int64_t i = axis + 1; i < rank; ++i) inner *= shape[static_cast<std::size_t>(i)];
  if (static_cast<std::size_t>(outer * channels * inner) != values.size()) return std::nullopt;
  ChannelSums out;
  out.sums.assign(static_cast<std::size_t>(channels), 0.0);
  out.count = static_cast<std::uint64_t>(outer * inner);
  if (inner < 64) {  // short rows (e.g. channels last): one pass in element order
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t c = 0; c < channels; ++c) {
        double s = 0;
        for (std::int64_t i = 0; i < inner; ++i) s += values[static_cast<std::size_t>((o * channels + c) * inner + i)];
        out.sums[static_cast<std::size_t>(c)] += s;
      }
    if (range) *range = min_max(values, parallel);
    return out;
  }
  // One partial sum (and range) per (outer, channel) row, in blocks of rows
  // of about kChunk values, added up in row order.
  std::int64_t rows = outer * channels;
  std::vector<double> row_sums(static_cast<std::size_t>(rows));
  std::vector<float> row_lo(range ? static_cast<std::size_t>(rows) : 0), row_hi(row_lo.size());
  const std::int64_t block = std::max<std::int64_t>(1, kChunk / inner), blocks = (rows + block - 1) / block;
  auto rows_of = [&](std::int64_t b) {
    const std::int64_t r0 = b * block, n = std::min(block, rows - r0);
    runtime::vmath::row_sums_and_ranges(values.data() + r0 * inner, n, inner, row_sums.data() + r0,
                                        range ? row_lo.data() + r0 : nullptr, range ? row_hi.data() + r0 : nullptr);
  };
  if (parallel && blocks > 1) parallel(blocks, rows_of);
  else
    for (std::int64_t b = 0; b < blocks; ++b) rows_of(b);
  for (std::int64_t r = 0; r < rows; ++r)
    out.sums[static_cast<std::size_t>(r % channels)] += row_sums[static_cast<std::size_t>(r)];
  if (range) {
    *range = {};
    for (std::size_t r = 0; r < row_lo.size(); ++r) *range = combine(*range, min_max_of(row_lo[r], row_hi[r]));
  }
  return out;
}

void ChannelMean::add(std::span<const float> values, std::span<const std::int64_t> shape, const ParallelFor& parallel) {
  if (auto s = channel_sums(values, shape, axis_, parallel)) add(*s);
}

void ChannelSums::add(const ChannelSums& more) {
  if (sums.empty()) sums.assign(more.sums.size(), 0.0);
  if (sums.size() != more.sums.size()) return;
  for (std::size_t c = 0; c < sums.size(); ++c) sums[c] += more.sums[c];
  count += more.count;
}

void ChannelMean::add(const ChannelSums& sample) { total_.add(sample); }

std::vector<double> ChannelMean::means() const {
  std::vector<double> m(total_.sums.size(), 0.0);
  for (std::size_t c = 0; c < m.size() && total_.count; ++c) m[c] = total_.sums[c] / static_cast<double>(total_.count);
  return m;
}

CalibrationStats::CalibrationStats(const CalibrationOptions& options, const std::vector<std::string>& tensors) {
  for (const auto& t : tensors) collectors_.emplace(t, RangeCollector(options));
}

void CalibrationStats::add(const std::string& name, std::span<const float> values, const ParallelFor& parallel) {
  auto it = collectors_.find(name);
  if (it != collectors_.end()) it->second.add(values, parallel);
}

void CalibrationStats::add(const std::string& name, const MinMax& sample) {
  auto it = collectors_.find(name);
  if (it != collectors_.end()) it->second.add(sample);
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

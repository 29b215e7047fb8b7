// Per-tensor calibration statistics, fed one sample at a time: memory depends
// on the number of calibrated tensors and bins, never on the number of samples.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "quant/calibration/histogram.h"
#include "quant/calibration/range_methods.h"
#include "quant/calibration/reduce.h"

namespace winml::quant {

enum class CalibrationMethod { kMinMax, kPercentile, kEntropy };
CalibrationMethod parse_calibration_method(const std::string& name);
// Histogram methods need every value, in the order values arrive; minmax
// needs only each sample's range.
inline bool needs_values_in_order(CalibrationMethod m) { return m != CalibrationMethod::kMinMax; }

struct CalibrationOptions {
  CalibrationMethod method = CalibrationMethod::kMinMax;
  bool symmetric = false;  // activation ranges symmetric around 0
  double percentile = 99.999;
  std::int64_t num_bins = 2048;
  std::int64_t num_quantized_bins = 128;
  int threads = 0;  // for statistics of large tensors; 0: one per core
  // Samples run at once, each on its own runner (minmax only: a histogram
  // depends on the order values arrive in). Results do not depend on it.
  int workers = 1;
  // The model's outputs of each sample are kept (CalibrationResult::outputs)
  // while all kept take no more than this: the accuracy pass compares them
  // instead of running the model again.
  std::size_t keep_outputs_bytes = 0;
};

class RangeCollector {
 public:
  explicit RangeCollector(const CalibrationOptions& options);
  void add(std::span<const float> values, const ParallelFor& parallel = {});
  // One sample's min and max (exact in any order; histogram methods need the values).
  void add(const MinMax& sample);
  bool empty() const;
  TensorRange range() const;

 private:
  CalibrationOptions options_;
  float min_ = 0, max_ = 0;
  bool seen_ = false;
  std::optional<Histogram> histogram_;
};

// One sample's per-channel sums (rows added in row order).
struct ChannelSums {
  std::vector<double> sums;
  std::uint64_t count = 0;  // values per channel
  // Adds `more` channel by channel (nothing when the channel counts differ).
  void add(const ChannelSums& more);
};
// Nothing when `axis` is outside `shape` or the sizes disagree. With
// `range`, also the values' min_max, taken row by row right after each
// row's sum, while the row is in cache (calibration wants both of most
// tensors whose means it takes: one pass over memory instead of two).
std::optional<ChannelSums> channel_sums(std::span<const float> values, std::span<const std::int64_t> shape,
                                        std::int64_t axis, const ParallelFor& parallel = {}, MinMax* range = nullptr);

// Per-channel means of a tensor over every sample (sums in double, each
// sample's added in sample order), for bias correction.
class ChannelMean {
 public:
  explicit ChannelMean(std::int64_t axis) : axis_(axis) {}
  void add(std::span<const float> values, std::span<const std::int64_t> shape, const ParallelFor& parallel = {});
  void add(const ChannelSums& sample);
  std::int64_t axis() const { return axis_; }
  std::vector<double> means() const;
  bool empty() const { return total_.count == 0; }

 private:
  std::int64_t axis_;  // -1: last
  ChannelSums total_;  // over the samples so far
};

// Collectors for a fixed set of tensor names (ordered: results are reported
// and applied in name order).
class CalibrationStats {
 public:
  CalibrationStats(const CalibrationOptions& options, const std::vector<std::string>& tensors);
  bool wants(const std::string& name) const { return collectors_.count(name) != 0; }
  void add(const std::string& name, std::span<const float> values, const ParallelFor& parallel = {});
  void add(const std::string& name, const MinMax& sample);
  // Ranges of every tensor that was observed at least once.
  std::map<std::string, TensorRange> ranges() const;
  std::vector<std::string> unobserved() const;

 private:
  std::map<std::string, RangeCollector> collectors_;
};

}  // namespace winml::quant

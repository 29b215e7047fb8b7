// A streaming histogram of a tensor's values across calibration samples, as
// ONNX Runtime's HistogramCollector keeps it: bins over [-t, t] (or [0, t] of
// |x|) that grow by whole bins when a later sample reaches further out, so
// earlier counts never need the samples again. Memory stays bounded: past
// `max_bins` the histogram is re-binned onto `num_bins` wider bins.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "quant/calibration/reduce.h"

namespace winml::quant {

class Histogram {
 public:
  enum class Mode { kSigned, kAbsolute };
  Histogram(Mode mode, std::int64_t num_bins, std::int64_t max_bins = 0);

  void add(std::span<const float> values, const ParallelFor& parallel = {});  // NaN is ignored

  bool empty() const { return empty_; }
  Mode mode() const { return mode_; }
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  double threshold() const { return threshold_; }  // bins cover [-t, t] (kSigned) or [0, t]
  double low_edge() const { return mode_ == Mode::kSigned ? -threshold_ : 0.0; }
  double stride() const;
  double edge(std::size_t i) const { return low_edge() + stride() * static_cast<double>(i); }
  float min() const { return min_; }  // of the values themselves
  float max() const { return max_; }
  std::uint64_t total() const;

 private:
  void bin(std::span<const float> values, const ParallelFor& parallel);
  void bin_chunk(std::span<const float> values, std::vector<std::uint64_t>& counts) const;
  void grow_to(double needed);
  void rebin(double new_threshold, std::size_t new_bins);

  Mode mode_;
  std::size_t num_bins_, max_bins_;
  std::vector<std::uint64_t> counts_;
  double threshold_ = 0;
  float min_ = 0, max_ = 0;
  bool empty_ = true;
};

}  // namespace winml::quant

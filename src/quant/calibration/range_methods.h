// From collected statistics to a tensor's calibrated range [lo, hi], as
// ONNX Runtime's MinMax, Percentile and Entropy calibrators choose it.
#pragma once

#include <cstdint>

#include "quant/calibration/histogram.h"

namespace winml::quant {

struct TensorRange {
  float lo = 0, hi = 0;
  bool operator==(const TensorRange&) const = default;
};

// Symmetric: [-m, m] with m = max(|min|, |max|).
TensorRange minmax_range(float min, float max, bool symmetric);

// Keeps `percentile` % of the mass: of |x| for an absolute histogram (giving
// [-e, e]), otherwise (100 - percentile) / 2 % is cut from each tail. Each
// bound is a bin's lower edge (where the cumulative share first reaches the
// target) and is clamped to the observed [min, max].
TensorRange percentile_range(const Histogram& h, double percentile);

// The symmetric threshold [-t, t] whose quantization to `num_quantized_bins`
// levels loses the least information: minimum KL divergence between the
// clipped reference distribution and its quantized expansion (TensorRT's
// method in ONNX Runtime's form), clamped to the observed [min, max].
TensorRange entropy_range(const Histogram& h, std::int64_t num_quantized_bins);

}  // namespace winml::quant

// Scale and zero point: r = scale * (q - zero_point), with ONNX Runtime's
// MinMax formula (compute_scale_zp in its quantization tools).
#pragma once

#include <cstdint>

#include "quant/qtype.h"

namespace winml::quant {

struct QParams {
  float scale = 1.0f;
  std::int32_t zero_point = 0;
  bool operator==(const QParams&) const = default;
};

// Maps [rmin, rmax] onto `range`:
// - the range is widened to include 0, so 0.0 is exactly representable;
// - `symmetric` widens it to [-m, m], m = max(|rmin|, |rmax|), and puts the
//   zero point in the middle of `range` (0 for signed, 128 for uint8);
// - scale = (rmax - rmin) / (qmax - qmin), computed in double and stored as
//   float; a scale below the smallest normal float (an all-zero tensor) becomes
//   1 with zero point 0.
// Non-finite bounds are treated as 0.
QParams compute_qparams(float rmin, float rmax, QRange range, bool symmetric);

// saturate(round_half_even(x / scale) + zero_point) into `range`: what
// QuantizeLinear computes, in float32 like ONNX Runtime.
std::int32_t quantize_value(float x, const QParams& p, QRange range);
inline float dequantize_value(std::int32_t q, const QParams& p) { return static_cast<float>(q - p.zero_point) * p.scale; }

}  // namespace winml::quant

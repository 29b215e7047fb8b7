// Quantizing constant tensors: weights (per tensor or per channel along an
// axis) and int32 biases whose scale is input scale × weight scale.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "quant/qparams.h"
#include "quant/qtype.h"

namespace winml::quant {

struct WeightOptions {
  QType type = QType::kInt8;
  bool symmetric = true;
  bool reduce_range = false;
  std::optional<std::int64_t> axis;  // per channel along this (non-negative) axis
  // With an axis: one scale per `block` consecutive indices along it instead
  // of one per index (opset 21's blocked DequantizeLinear): the parameters
  // are shaped as the tensor with the axis' length divided into blocks.
  std::int64_t block = 0;
};

struct QuantizedTensor {
  std::int32_t onnx_type = 0;      // element type of `data`
  std::vector<std::int64_t> dims;  // as the float tensor
  std::vector<std::byte> data;     // little-endian elements; 4-bit ones two to a byte, low nibble first
  std::vector<QParams> params;     // one per channel, or one, or one per block (row-major in param_dims)
  std::optional<std::int64_t> axis;
  std::int64_t block = 0;
  std::vector<std::int64_t> param_dims;  // the scale's shape: [] per tensor, [channels], or blocked
};

// Element (outer, index along the axis, inner) of a row-major tensor whose
// quantization parameters come in blocks of `block` along `axis`; parameter
// p = (outer * blocks + index / block) * inner + inner index.
struct BlockLayout {
  std::int64_t outer = 1, len = 1, inner = 1, block = 1, blocks = 1;
};
BlockLayout block_layout(const std::vector<std::int64_t>& dims, std::int64_t axis, std::int64_t block);

// The integer stored at element i of `q.data` (4-bit ones unpacked).
std::int32_t stored_value(const QuantizedTensor& q, std::size_t i);

// Element (outer, channel, inner) layout of a row-major tensor split at `axis`.
struct ChannelLayout {
  std::int64_t outer = 1, channels = 1, inner = 1;
};
ChannelLayout channel_layout(const std::vector<std::int64_t>& dims, std::optional<std::int64_t> axis);

// min/max of each channel (all of it per tensor), then ORT's MinMax qparams.
QuantizedTensor quantize_weight(std::span<const float> values, const std::vector<std::int64_t>& dims,
                                const WeightOptions& options);

// Re-quantizes with given params (one per channel), e.g. after a scale was raised.
QuantizedTensor quantize_with(std::span<const float> values, const std::vector<std::int64_t>& dims,
                              const WeightOptions& options, const std::vector<QParams>& params);

// The float values a quantized tensor stands for: (q - zero_point) * scale.
std::vector<float> dequantize(const QuantizedTensor& q);

// The smallest weight scale (per channel, or one) for which the bias still fits
// int32 with scale input_scale × weight_scale: ONNX Runtime raises weight scales
// below it. Returns the adjusted scales and whether any changed.
struct ScaleAdjustment {
  std::vector<float> weight_scales;
  bool changed = false;
};
ScaleAdjustment fit_bias_in_int32(std::span<const float> bias, float input_scale, std::span<const float> weight_scales);

struct QuantizedBias {
  std::vector<std::int32_t> values;
  std::vector<float> scales;  // one per channel, or one
};
// round(bias / (input_scale × weight_scale[c])), saturated to int32. With one
// weight scale, every element uses it; otherwise bias element c uses scale c.
QuantizedBias quantize_bias(std::span<const float> bias, float input_scale, std::span<const float> weight_scales);

}  // namespace winml::quant

#include "quant/weight_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/error.h"
#include "model/tensor_data.h"
#include "runtime/vector_math.h"

namespace winml::quant {

ChannelLayout channel_layout(const std::vector<std::int64_t>& dims, std::optional<std::int64_t> axis) {
  ChannelLayout l;
  if (!axis) {
    for (auto d : dims) l.inner *= d;
    return l;
  }
  if (*axis < 0 || *axis >= static_cast<std::int64_t>(dims.size()))
    throw BuildError("per-channel axis " + std::to_string(*axis) + " is out of range for a rank-" +
                     std::to_string(dims.size()) + " tensor");
  for (std::int64_t i = 0; i < *axis; ++i) l.outer *= dims[i];
  l.channels = dims[*axis];
  for (std::size_t i = *axis + 1; i < dims.size(); ++i) l.inner *= dims[i];
  return l;
}

BlockLayout block_layout(const std::vector<std::int64_t>& dims, std::int64_t axis, std::int64_t block) {
  if (axis < 0 || axis >= static_cast<std::int64_t>(dims.size()) || block <= 0)
    throw BuildError("block quantization along axis " + std::to_string(axis) + " in blocks of " +
                     std::to_string(block) + " does not fit a rank-" + std::to_string(dims.size()) + " tensor");
  BlockLayout l;
  for (std::int64_t i = 0; i < axis; ++i) l.outer *= dims[static_cast<std::size_t>(i)];
  l.len = dims[static_cast<std::size_t>(axis)];
  for (std::size_t i = static_cast<std::size_t>(axis) + 1; i < dims.size(); ++i) l.inner *= dims[i];
  l.block = block;
  l.blocks = (l.len + block - 1) / block;
  return l;
}

namespace {

// Visits every element e of a blocked layout with its parameter index p, in
// element order.
template <typename Fn>
void for_blocked(const BlockLayout& l, Fn&& fn) {
  std::size_t e = 0;
  for (std::int64_t o = 0; o < l.outer; ++o)
    for (std::int64_t i = 0; i < l.len; ++i) {
      const std::size_t p0 = static_cast<std::size_t>((o * l.blocks + i / l.block) * l.inner);
      for (std::int64_t j = 0; j < l.inner; ++j, ++e) fn(e, p0 + static_cast<std::size_t>(j));
    }
}

// Stores integer q at element i, in the type's width (4-bit: into its nibble
// of a zeroed buffer).
void store_value(std::byte* data, QType t, std::size_t i, std::int32_t q) {
  switch (t) {
    case QType::kUInt8:
    case QType::kInt8: data[i] = static_cast<std::byte>(q & 0xff); return;
    case QType::kUInt16:
    case QType::kInt16: {
      const std::uint16_t v = static_cast<std::uint16_t>(q);
      std::memcpy(data + 2 * i, &v, 2);  // (little-endian)
      return;
    }
    case QType::kUInt4:
    case QType::kInt4: data[i / 2] |= static_cast<std::byte>((q & 15) << (4 * (i % 2))); return;
  }
}

std::vector<std::int64_t> blocked_param_dims(std::vector<std::int64_t> dims, std::int64_t axis, const BlockLayout& l) {
  dims[static_cast<std::size_t>(axis)] = l.blocks;
  return dims;
}

QuantizedTensor quantize_blocked(std::span<const float> values, const std::vector<std::int64_t>& dims,
                                 const WeightOptions& options, const std::vector<QParams>& params) {
  const BlockLayout l = block_layout(dims, *options.axis, options.block);
  if (static_cast<std::int64_t>(params.size()) != l.outer * l.blocks * l.inner)
    throw BuildError("quantization parameters do not match the block count");
  const QRange range = qrange(options.type, options.reduce_range, options.symmetric);
  QuantizedTensor q;
  q.onnx_type = onnx_type(options.type);
  q.dims = dims;
  q.axis = options.axis;
  q.block = options.block;
  q.param_dims = blocked_param_dims(dims, *options.axis, l);
  q.params = params;
  q.data.assign(is_4bit(options.type) ? (values.size() + 1) / 2 : values.size() * qtype_size(options.type),
                std::byte{0});
  for_blocked(l, [&](std::size_t e, std::size_t p) {
    store_value(q.data.data(), options.type, e, quantize_value(values[e], params[p], range));
  });
  return q;
}

// Quantizes each channel's runs of values (its slices along the layout's
// outer dimension) with the runtime's quantization loop: vector code where
// the CPU has it, the same values as quantize_value.
template <typename Q>
void quantize_runs(std::span<const float> values, const ChannelLayout& l, const std::vector<QParams>& params,
                   QRange range, std::byte* out) {
  Q* y = reinterpret_cast<Q*>(out);
  for (std::int64_t c = 0; c < l.channels; ++c) {
    const QParams& p = params[static_cast<std::size_t>(c)];
    const Q lo = static_cast<Q>(range.qmin), hi = static_cast<Q>(range.qmax);
    const Q nan = static_cast<Q>(std::clamp(p.zero_point, range.qmin, range.qmax));
    for (std::int64_t o = 0; o < l.outer; ++o) {
      const std::size_t base = static_cast<std::size_t>((o * l.channels + c) * l.inner);
      runtime::vmath::quantize(values.data() + base, l.inner, p.scale, static_cast<float>(p.zero_point), lo, hi, nan,
                               y + base);
    }
  }
}

// Visits element indices of channel c in a fixed order.
template <typename Fn>
void for_channel(const ChannelLayout& l, std::int64_t c, Fn&& fn) {
  for (std::int64_t o = 0; o < l.outer; ++o) {
    std::size_t base = static_cast<std::size_t>((o * l.channels + c) * l.inner);
    for (std::int64_t i = 0; i < l.inner; ++i) fn(base + static_cast<std::size_t>(i));
  }
}

}  // namespace

QuantizedTensor quantize_with(std::span<const float> values, const std::vector<std::int64_t>& dims,
                              const WeightOptions& options, const std::vector<QParams>& params) {
  if (options.block && options.axis) return quantize_blocked(values, dims, options, params);
  ChannelLayout l = channel_layout(dims, options.axis);
  if (static_cast<std::int64_t>(params.size()) != l.channels)
    throw BuildError("quantization parameters do not match the channel count");
  QRange range = qrange(options.type, options.reduce_range, options.symmetric);
  QuantizedTensor q;
  q.onnx_type = onnx_type(options.type);
  q.dims = dims;
  q.axis = options.axis;
  q.params = params;
  if (options.axis) q.param_dims = {static_cast<std::int64_t>(params.size())};
  q.data.resize(values.size() * qtype_size(options.type));
  switch (options.type) {
    case QType::kUInt8: quantize_runs<std::uint8_t>(values, l, params, range, q.data.data()); break;
    case QType::kInt8: quantize_runs<std::int8_t>(values, l, params, range, q.data.data()); break;
    case QType::kUInt16: quantize_runs<std::uint16_t>(values, l, params, range, q.data.data()); break;
    case QType::kInt16: quantize_runs<std::int16_t>(values, l, params, range, q.data.data()); break;
    case QType::kUInt4:
    case QType::kInt4: {
      // One byte per value first (the same loop), then two to a byte.
      if (options.type == QType::kUInt4) quantize_runs<std::uint8_t>(values, l, params, range, q.data.data());
      else quantize_runs<std::int8_t>(values, l, params, range, q.data.data());
      std::vector<std::byte> packed((values.size() + 1) / 2, std::byte{0});
      for (std::size_t i = 0; i < values.size(); ++i)
        store_value(packed.data(), options.type, i, static_cast<std::int32_t>(static_cast<std::int8_t>(q.data[i])));
      q.data = std::move(packed);
      break;
    }
  }
  return q;
}

std::int32_t stored_value(const QuantizedTensor& q, std::size_t i) {
  switch (q.onnx_type) {
    case 2: return static_cast<std::int32_t>(static_cast<std::uint8_t>(q.data[i]));  // UINT8
    case 3: return static_cast<std::int32_t>(static_cast<std::int8_t>(q.data[i]));   // INT8
    case 4: {                                                                        // UINT16
      std::uint16_t v;
      std::memcpy(&v, q.data.data() + 2 * i, 2);
      return v;
    }
    case 5: {  // INT16
      std::int16_t v;
      std::memcpy(&v, q.data.data() + 2 * i, 2);
      return v;
    }
    case model::kUint4: return (static_cast<std::int32_t>(q.data[i / 2]) >> (4 * (i % 2))) & 15;
    case model::kInt4: return ((((static_cast<std::int32_t>(q.data[i / 2]) >> (4 * (i % 2))) & 15) ^ 8) - 8);
    default: return 0;
  }
}

QuantizedTensor quantize_weight(std::span<const float> values, const std::vector<std::int64_t>& dims,
                                const WeightOptions& options) {
  if (options.block && options.axis) {
    // Each block's range: NaN ignored, widened to include 0 by compute_qparams.
    const BlockLayout l = block_layout(dims, *options.axis, options.block);
    if (static_cast<std::size_t>(l.outer * l.len * l.inner) != values.size())
      throw BuildError("weight has " + std::to_string(values.size()) + " values but its shape holds " +
                       std::to_string(l.outer * l.len * l.inner));
    const std::size_t count = static_cast<std::size_t>(l.outer * l.blocks * l.inner);
    std::vector<float> lo(count, 0.0f), hi(count, 0.0f);
    for_blocked(l, [&](std::size_t e, std::size_t p) {
      const float v = values[e];
      if (std::isnan(v)) return;
      lo[p] = std::min(lo[p], v);
      hi[p] = std::max(hi[p], v);
    });
    const QRange range = qrange(options.type, options.reduce_range, options.symmetric);
    std::vector<QParams> params(count);
    for (std::size_t p = 0; p < count; ++p) params[p] = compute_qparams(lo[p], hi[p], range, options.symmetric);
    return quantize_blocked(values, dims, options, params);
  }
  ChannelLayout l = channel_layout(dims, options.axis);
  if (static_cast<std::size_t>(l.outer * l.channels * l.inner) != values.size())
    throw BuildError("weight has " + std::to_string(values.size()) + " values but its shape holds " +
                     std::to_string(l.outer * l.channels * l.inner));
  QRange range = qrange(options.type, options.reduce_range, options.symmetric);
  std::vector<QParams> params;
  params.reserve(static_cast<std::size_t>(l.channels));
  for (std::int64_t c = 0; c < l.channels; ++c) {
    float lo = 0.0f, hi = 0.0f;
    bool first = true;
    for_channel(l, c, [&](std::size_t i) {
      float v = values[i];
      if (std::isnan(v)) return;
      if (first) lo = hi = v, first = false;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    });
    params.push_back(compute_qparams(lo, hi, range, options.symmetric));
  }
  return quantize_with(values, dims, options, params);
}

namespace {

// Each channel's runs of values as dequantize_value gives them, with the
// element type chosen once (a loop per type the compiler vectorizes, instead
// of a switch per element).
template <typename Q>
void dequantize_runs(const QuantizedTensor& q, const ChannelLayout& l, float* out) {
  const std::byte* data = q.data.data();
  for (std::int64_t c = 0; c < l.channels; ++c) {
    const QParams& p = q.params[static_cast<std::size_t>(c)];
    for (std::int64_t o = 0; o < l.outer; ++o) {
      const std::size_t base = static_cast<std::size_t>((o * l.channels + c) * l.inner);
      for (std::int64_t i = 0; i < l.inner; ++i) {
        Q x;
        std::memcpy(&x, data + (base + static_cast<std::size_t>(i)) * sizeof(Q), sizeof(Q));  // (little-endian)
        out[base + static_cast<std::size_t>(i)] = dequantize_value(static_cast<std::int32_t>(x), p);
      }
    }
  }
}

}  // namespace

std::vector<float> dequantize(const QuantizedTensor& q) {
  if (q.block && q.axis) {
    const BlockLayout l = block_layout(q.dims, *q.axis, q.block);
    std::vector<float> out(static_cast<std::size_t>(l.outer * l.len * l.inner));
    for_blocked(l, [&](std::size_t e, std::size_t p) { out[e] = dequantize_value(stored_value(q, e), q.params[p]); });
    return out;
  }
  ChannelLayout l = channel_layout(q.dims, q.axis);
  std::size_t n = static_cast<std::size_t>(l.outer * l.channels * l.inner);
  std::vector<float> out(n);
  switch (q.onnx_type) {
    case 2: dequantize_runs<std::uint8_t>(q, l, out.data()); break;   // UINT8
    case 3: dequantize_runs<std::int8_t>(q, l, out.data()); break;    // INT8
    case 4: dequantize_runs<std::uint16_t>(q, l, out.data()); break;  // UINT16
    case 5: dequantize_runs<std::int16_t>(q, l, out.data()); break;   // INT16
    case model::kUint4:
    case model::kInt4:
      for (std::int64_t c = 0; c < l.channels; ++c)
        for_channel(l, c, [&](std::size_t i) {
          out[i] = dequantize_value(stored_value(q, i), q.params[static_cast<std::size_t>(c)]);
        });
      break;
    default:  // (no other type is produced here; as before, the zero point's value)
      for (std::int64_t c = 0; c < l.channels; ++c)
        for_channel(l, c, [&](std::size_t i) { out[i] = dequantize_value(0, q.params[static_cast<std::size_t>(c)]); });
  }
  return out;
}

ScaleAdjustment fit_bias_in_int32(std::span<const float> bias, float input_scale,
                                  std::span<const float> weight_scales) {
  ScaleAdjustment a;
  a.weight_scales.assign(weight_scales.begin(), weight_scales.end());
  // 2·absmax over the int32 range, with a little headroom for rounding.
  const double qspan = static_cast<double>(std::numeric_limits<std::int32_t>::max()) -
                       (static_cast<double>(std::numeric_limits<std::int32_t>::min()) + 1.0);
  auto smallest_valid = [&](double absmax) { return 1.0001 * 2.0 * absmax / qspan; };
  auto adjust = [&](std::size_t c, double absmax) {
    double need = smallest_valid(absmax);
    if (static_cast<double>(input_scale) * a.weight_scales[c] < need && input_scale > 0.0f) {
      a.weight_scales[c] = static_cast<float>(need / input_scale);
      a.changed = true;
    }
  };
  if (weight_scales.size() == 1) {
    double absmax = 0;
    for (float b : bias)
      if (std::isfinite(b)) absmax = std::max(absmax, std::fabs(double(b)));
    adjust(0, absmax);
  } else {
    for (std::size_t c = 0; c < weight_scales.size() && c < bias.size(); ++c)
      if (std::isfinite(bias[c])) adjust(c, std::fabs(double(bias[c])));
  }
  return a;
}

QuantizedBias quantize_bias(std::span<const float> bias, float input_scale, std::span<const float> weight_scales) {
  if (weight_scales.size() != 1 && weight_scales.size() != bias.size())
    throw BuildError("bias has " + std::to_string(bias.size()) + " values but the weight has " +
                     std::to_string(weight_scales.size()) + " channel scales");
  QuantizedBias q;
  for (float w : weight_scales) q.scales.push_back(input_scale * w);  // float32 product, as stored
  q.values.reserve(bias.size());
  const double lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
  for (std::size_t i = 0; i < bias.size(); ++i) {
    double s = q.scales[q.scales.size() == 1 ? 0 : i];
    double v = s > 0 ? std::nearbyint(static_cast<double>(bias[i]) / s) : 0.0;
    if (std::isnan(v)) v = 0;
    q.values.push_back(static_cast<std::int32_t>(std::clamp(v, lo, hi)));
  }
  return q;
}

}  // namespace winml::quant

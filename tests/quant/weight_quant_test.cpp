// Weight and bias quantization: per tensor and per channel along each axis.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "quant/weight_quant.h"

namespace winml::quant {
namespace {

std::vector<float> random_values(std::size_t n, std::uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

std::int32_t element(const QuantizedTensor& q, std::size_t i) {
  switch (q.onnx_type) {
    case 2: return q.data[i] == std::byte{0} ? 0 : static_cast<std::uint8_t>(q.data[i]);  // UINT8
    case 3: return static_cast<std::int8_t>(q.data[i]);                                   // INT8
    case 4: {
      std::uint16_t v;
      std::memcpy(&v, q.data.data() + 2 * i, 2);
      return v;
    }  // UINT16
    case 5: {
      std::int16_t v;
      std::memcpy(&v, q.data.data() + 2 * i, 2);
      return v;
    }  // INT16
  }
  return 0;
}

// Every element dequantizes to within half a step of its channel's scale.
void expect_close(const std::vector<float>& w, const std::vector<std::int64_t>& dims, const QuantizedTensor& q) {
  ChannelLayout l = channel_layout(dims, q.axis);
  for (std::int64_t o = 0; o < l.outer; ++o)
    for (std::int64_t c = 0; c < l.channels; ++c)
      for (std::int64_t i = 0; i < l.inner; ++i) {
        std::size_t idx = static_cast<std::size_t>((o * l.channels + c) * l.inner + i);
        const QParams& p = q.params[static_cast<std::size_t>(c)];
        float back = dequantize_value(element(q, idx), p);
        ASSERT_LE(std::fabs(back - w[idx]), 0.5f * p.scale * 1.0001f) << idx;
      }
}

TEST(WeightQuant, PerTensorSymmetricInt8) {
  std::vector<std::int64_t> dims = {8, 4, 3, 3};
  auto w = random_values(8 * 4 * 9, 1);
  QuantizedTensor q = quantize_weight(w, dims, {QType::kInt8, true, false, std::nullopt});
  ASSERT_EQ(q.params.size(), 1u);
  EXPECT_EQ(q.params[0].zero_point, 0);
  float absmax = 0;
  for (float x : w) absmax = std::max(absmax, std::fabs(x));
  EXPECT_FLOAT_EQ(q.params[0].scale, static_cast<float>(2.0 * absmax / 254.0));
  expect_close(w, dims, q);
  // The extreme value maps to +-127, never -128.
  for (std::size_t i = 0; i < w.size(); ++i) ASSERT_GE(element(q, i), -127);
}

TEST(WeightQuant, PerChannelEveryAxisAndType) {
  std::vector<std::int64_t> dims = {5, 6, 7};
  // Channels of very different magnitude along each axis: a per-tensor scale
  // would lose the small ones.
  auto w = random_values(5 * 6 * 7, 2);
  for (std::int64_t axis = 0; axis < 3; ++axis) {
    std::vector<float> scaled = w;
    ChannelLayout l = channel_layout(dims, axis);
    for (std::int64_t o = 0; o < l.outer; ++o)
      for (std::int64_t c = 0; c < l.channels; ++c)
        for (std::int64_t i = 0; i < l.inner; ++i)
          scaled[static_cast<std::size_t>((o * l.channels + c) * l.inner + i)] *= std::pow(10.0f, float(c) - 3);
    for (QType t : {QType::kUInt8, QType::kInt8, QType::kUInt16, QType::kInt16}) {
      bool sym = is_signed(t);
      QuantizedTensor q = quantize_weight(scaled, dims, {t, sym, false, axis});
      ASSERT_EQ(static_cast<std::int64_t>(q.params.size()), dims[axis]);
      expect_close(scaled, dims, q);
      for (std::size_t c = 1; c < q.params.size(); ++c) EXPECT_GT(q.params[c].scale, q.params[c - 1].scale);
    }
  }
}

TEST(WeightQuant, ReduceRangeUsesSevenBits) {
  auto w = random_values(64, 3);
  QuantizedTensor q = quantize_weight(w, {64}, {QType::kInt8, true, true, std::nullopt});
  for (std::size_t i = 0; i < w.size(); ++i) {
    ASSERT_GE(element(q, i), -64);
    ASSERT_LE(element(q, i), 64);
  }
}

TEST(WeightQuant, ConstantChannelIsExact) {
  std::vector<float> w = {0, 0, 0, 0.5f, 0.5f, 0.5f};
  QuantizedTensor q = quantize_weight(w, {2, 3}, {QType::kUInt8, false, false, 0});
  EXPECT_EQ(q.params[0].scale, 1.0f);  // all-zero channel: the tiny-range guard
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(dequantize_value(element(q, i), q.params[i / 3]), w[i]);
}

TEST(BiasQuant, Int32WithProductScale) {
  std::vector<float> bias = {0.5f, -1.25f, 3.0f};
  std::vector<float> wscales = {0.01f, 0.02f, 0.04f};
  QuantizedBias b = quantize_bias(bias, 0.1f, wscales);
  ASSERT_EQ(b.scales.size(), 3u);
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_FLOAT_EQ(b.scales[c], 0.1f * wscales[c]);
    EXPECT_NEAR(b.values[c] * b.scales[c], bias[c], 0.5 * b.scales[c]);
  }
  QuantizedBias one = quantize_bias(bias, 0.1f, std::vector<float>{0.01f});
  EXPECT_EQ(one.scales.size(), 1u);
  EXPECT_EQ(one.values[2], 3000);
}

TEST(BiasQuant, WeightScaleRaisedSoBiasFitsInt32) {
  std::vector<float> bias = {100.0f, 1e-5f};
  std::vector<float> wscales = {1e-9f, 1e-9f};
  ScaleAdjustment a = fit_bias_in_int32(bias, 1e-4f, wscales);
  EXPECT_TRUE(a.changed);
  EXPECT_GT(a.weight_scales[0], wscales[0]);
  EXPECT_EQ(a.weight_scales[1], wscales[1]);  // this channel already fits
  QuantizedBias b = quantize_bias(bias, 1e-4f, a.weight_scales);
  EXPECT_LT(b.values[0], std::numeric_limits<std::int32_t>::max());
  EXPECT_NEAR(b.values[0] * double(b.scales[0]), 100.0, 1e-3);
  EXPECT_FALSE(fit_bias_in_int32(bias, 0.1f, std::vector<float>{0.1f}).changed);
}

}  // namespace
}  // namespace winml::quant

namespace winml::quant {

TEST(WeightQuant, EveryElementQuantizesAndDequantizesAsTheOneValueFormulas) {
  // quantize_with runs the runtime's vector loop over each channel's runs:
  // it must give quantize_value's result for every element, ties to even,
  // NaN to the zero point and the range's saturation included. dequantize,
  // a loop per element type, must give dequantize_value's.
  std::vector<float> w = random_values(4 * 3 * 37, 21, 2.0f);
  for (std::size_t i = 0; i < 40; ++i) w[i * 7] = static_cast<float>(static_cast<int>(i) - 20) * 0.125f;  // ties
  w[5] = std::numeric_limits<float>::quiet_NaN();
  w[50] = std::numeric_limits<float>::infinity();
  w[51] = -std::numeric_limits<float>::infinity();
  w[52] = 1e30f;
  const std::vector<std::int64_t> dims{4, 3, 37};
  for (QType type : {QType::kUInt8, QType::kInt8, QType::kUInt16, QType::kInt16})
    for (bool reduce : {false, true})
      for (std::optional<std::int64_t> axis : {std::optional<std::int64_t>{}, std::optional<std::int64_t>{1}}) {
        WeightOptions o{type, /*symmetric=*/type == QType::kInt8, reduce, axis};
        const ChannelLayout l = channel_layout(dims, axis);
        // Parameters chosen so that some values saturate and ties land on .5.
        std::vector<QParams> params;
        for (std::int64_t c = 0; c < l.channels; ++c) params.push_back({0.25f, type == QType::kUInt8 ? 100 : -3});
        const QRange range = qrange(type, reduce, o.symmetric);
        const QuantizedTensor q = quantize_with(w, dims, o, params);
        const std::vector<float> back = dequantize(q);  // (a loop per element type: each element's value back)
        ASSERT_EQ(back.size(), w.size());
        for (std::int64_t oo = 0; oo < l.outer; ++oo)
          for (std::int64_t c = 0; c < l.channels; ++c)
            for (std::int64_t i = 0; i < l.inner; ++i) {
              const auto idx = static_cast<std::size_t>((oo * l.channels + c) * l.inner + i);
              ASSERT_EQ(element(q, idx), quantize_value(w[idx], params[static_cast<std::size_t>(c)], range))
                  << "value " << w[idx] << " at " << idx << ", type " << static_cast<int>(type) << ", reduce "
                  << reduce;
              ASSERT_EQ(back[idx], dequantize_value(element(q, idx), params[static_cast<std::size_t>(c)])) << idx;
            }
      }
}

}  // namespace winml::quant

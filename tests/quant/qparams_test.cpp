// Scale/zero-point math against hand-derived values of ONNX Runtime's formula
// and against the properties it guarantees.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "quant/qparams.h"
#include "quant/qtype.h"

namespace winml::quant {
namespace {

TEST(QRange, MatchesOrtTables) {
  EXPECT_EQ(qrange(QType::kUInt8, false, false).qmax, 255);
  EXPECT_EQ(qrange(QType::kInt8, false, false).qmin, -128);
  EXPECT_EQ(qrange(QType::kInt8, false, true).qmin, -127);
  EXPECT_EQ(qrange(QType::kInt16, false, true).qmin, -32767);
  EXPECT_EQ(qrange(QType::kUInt16, false, true).qmax, 65535);
  EXPECT_EQ(qrange(QType::kUInt8, true, false).qmax, 127);
  EXPECT_EQ(qrange(QType::kInt8, true, true).qmin, -64);
  EXPECT_EQ(qrange(QType::kInt8, true, true).qmax, 64);
  EXPECT_EQ(qrange(QType::kUInt16, true, false).qmax, 32767);
}

TEST(QParams, AsymmetricUint8) {
  // [0, 2.55] -> 255 steps of 0.01, zero at 0.
  QParams p = compute_qparams(0.0f, 2.55f, {0, 255}, false);
  EXPECT_NEAR(p.scale, 0.01f, 1e-8);
  EXPECT_EQ(p.zero_point, 0);
  // [-1, 1]: scale 2/255, zero point round(0 + 1 / (2/255)) = round(127.5) = 128 (half to even).
  p = compute_qparams(-1.0f, 1.0f, {0, 255}, false);
  EXPECT_FLOAT_EQ(p.scale, 2.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 128);
}

TEST(QParams, RangeAlwaysIncludesZero) {
  // [2, 4] is widened to [0, 4]: zero is exactly representable.
  QParams p = compute_qparams(2.0f, 4.0f, {0, 255}, false);
  EXPECT_FLOAT_EQ(p.scale, 4.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 0);
  p = compute_qparams(-4.0f, -2.0f, {-128, 127}, false);
  EXPECT_FLOAT_EQ(p.scale, 4.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 127);
  EXPECT_EQ(dequantize_value(p.zero_point, p), 0.0f);
}

TEST(QParams, SymmetricRanges) {
  QParams p = compute_qparams(-0.5f, 2.0f, {-127, 127}, true);
  EXPECT_FLOAT_EQ(p.scale, 4.0f / 254.0f);
  EXPECT_EQ(p.zero_point, 0);
  p = compute_qparams(-0.5f, 2.0f, {0, 255}, true);
  EXPECT_FLOAT_EQ(p.scale, 4.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 128);  // round(127.5)
  p = compute_qparams(-3.0f, 1.0f, {0, 65535}, true);
  EXPECT_EQ(p.zero_point, 32768);
}

TEST(QParams, TinyRangeGuard) {
  QParams p = compute_qparams(0.0f, 0.0f, {0, 255}, false);
  EXPECT_EQ(p.scale, 1.0f);
  EXPECT_EQ(p.zero_point, 0);
  p = compute_qparams(0.0f, 1e-39f, {-128, 127}, false);  // denormal range
  EXPECT_EQ(p.scale, 1.0f);
  EXPECT_EQ(p.zero_point, 0);
  p = compute_qparams(std::numeric_limits<float>::quiet_NaN(), 1.0f, {0, 255}, false);
  EXPECT_FLOAT_EQ(p.scale, 1.0f / 255.0f);
}

TEST(QParams, RandomRangesRoundTripWithinHalfAStep) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-50.0f, 50.0f);
  for (QType t : {QType::kUInt8, QType::kInt8, QType::kUInt16, QType::kInt16}) {
    for (bool sym : {false, true}) {
      QRange r = qrange(t, false, sym);
      for (int i = 0; i < 200; ++i) {
        float a = d(rng), b = d(rng);
        float lo = std::min(a, b), hi = std::max(a, b);
        QParams p = compute_qparams(lo, hi, r, sym);
        ASSERT_GE(p.zero_point, r.qmin);
        ASSERT_LE(p.zero_point, r.qmax);
        ASSERT_EQ(dequantize_value(quantize_value(0.0f, p, r), p), 0.0f);
        for (float x : {lo, hi, 0.5f * (lo + hi)}) {
          float y = dequantize_value(quantize_value(x, p, r), p);
          ASSERT_LE(std::fabs(x - y), 0.5f * p.scale * 1.001f + std::fabs(x) * 1e-6f)
              << qtype_name(t) << " " << lo << " " << hi;
        }
      }
    }
  }
}

TEST(QuantizeValue, RoundsHalfToEvenAndSaturates) {
  QParams p{1.0f, 0};
  QRange r{-128, 127};
  EXPECT_EQ(quantize_value(2.5f, p, r), 2);
  EXPECT_EQ(quantize_value(3.5f, p, r), 4);
  EXPECT_EQ(quantize_value(-2.5f, p, r), -2);
  EXPECT_EQ(quantize_value(1000.0f, p, r), 127);
  EXPECT_EQ(quantize_value(-1000.0f, p, r), -128);
  EXPECT_EQ(quantize_value(std::numeric_limits<float>::quiet_NaN(), QParams{1.0f, 3}, r), 3);
}

}  // namespace
}  // namespace winml::quant

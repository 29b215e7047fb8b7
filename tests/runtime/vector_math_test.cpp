// The vectorized float math against double-precision libm.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runtime/vector_math.h"

using namespace winml::runtime;

namespace {

std::vector<float> sweep(float lo, float hi, int n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[i] = lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(n - 1);
  return v;
}

}  // namespace

TEST(VectorMath, ExpIsWithinTwoUlpOverTheFloatRange) {
  auto x = sweep(-87.0f, 88.5f, 200001);
  std::vector<float> y(x.size());
  vmath::exp(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::fabs(y[i] - std::exp(double(x[i]))) / std::exp(double(x[i])));
  EXPECT_LT(worst, 2.5e-7);  // 2^-23 is 1.19e-7

  float edge[] = {-200.0f, -88.0f, 89.0f, 1000.0f, INFINITY, -INFINITY, NAN, 0.0f};
  float out[8];
  vmath::exp(edge, out, 8);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_GE(out[1], 0.0f);
  EXPECT_TRUE(std::isinf(out[2]) && out[2] > 0);
  EXPECT_TRUE(std::isinf(out[3]));
  EXPECT_TRUE(std::isinf(out[4]));
  EXPECT_EQ(out[5], 0.0f);
  EXPECT_TRUE(std::isnan(out[6]));
  EXPECT_EQ(out[7], 1.0f);
}

TEST(VectorMath, ErfGeluAndSigmoidMatchLibm) {
  auto x = sweep(-6.0f, 6.0f, 120001);
  std::int64_t n = static_cast<std::int64_t>(x.size());
  std::vector<float> e(x.size()), g(x.size()), s(x.size());
  vmath::erf(x.data(), e.data(), n);
  vmath::gelu(x.data(), g.data(), n);
  vmath::sigmoid(x.data(), s.data(), n);
  double erf_rel = 0, gelu_abs = 0, sig_rel = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    double ref = std::erf(v);
    if (ref != 0) erf_rel = std::max(erf_rel, std::fabs(e[i] - ref) / std::fabs(ref));
    gelu_abs = std::max(gelu_abs,
                        std::fabs(g[i] - 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))) / std::max(1.0, std::fabs(v)));
    double sig = 1 / (1 + std::exp(-v));
    sig_rel = std::max(sig_rel, std::fabs(s[i] - sig) / sig);
  }
  EXPECT_LT(erf_rel, 5e-7);
  EXPECT_LT(gelu_abs, 5e-7);
  EXPECT_LT(sig_rel, 5e-7);
  float tiny[] = {1e-30f, -1e-20f, 1e-8f, NAN};
  float out[4];
  vmath::erf(tiny, out, 4);
  EXPECT_NEAR(out[0], 1.1283791671e-30, 1e-36);
  EXPECT_NEAR(out[2], 1.1283791671e-8, 1e-14);
  EXPECT_LT(out[1], 0.0f);
  EXPECT_TRUE(std::isnan(out[3]));
}

TEST(VectorMath, SumsInDoubleWhateverTheLengthAndAlignment) {
  std::vector<float> v(1031);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(double(i))) * 1000.0f;
  for (std::size_t start : {0, 1, 3}) {
    for (std::int64_t len : {0, 1, 7, 8, 9, 1000, 1024}) {
      long double ref = 0, sq = 0;
      for (std::int64_t i = 0; i < len; ++i) ref += v[start + i];
      double mean = len ? static_cast<double>(ref / len) : 0.0;
      for (std::int64_t i = 0; i < len; ++i) sq += (v[start + i] - mean) * (v[start + i] - mean);
      EXPECT_NEAR(vmath::sum(v.data() + start, len), static_cast<double>(ref), 1e-9);
      EXPECT_NEAR(vmath::sum_squared_deviations(v.data() + start, len, mean), static_cast<double>(sq), 1e-6 * (1 + sq));
    }
  }
}

TEST(VectorMath, EveryInstructionSetGivesTheSameBits) {
  // Digests and outputs must not depend on the machine a build ran on.
  auto x = sweep(-100.0f, 100.0f, 10007);  // an odd count: every loop's tail runs
  x.push_back(NAN);
  x.push_back(INFINITY);
  const auto n = static_cast<std::int64_t>(x.size());
  const auto variants = vmath::kernels_this_cpu_runs();
  ASSERT_FALSE(variants.empty());
  EXPECT_STREQ(variants.back()->isa, "generic");
  const vmath::Kernels& base = *variants.back();
  auto bits = [&](void (*f)(const float*, float*, std::int64_t)) {
    std::vector<float> y(x.size());
    f(x.data(), y.data(), n);
    std::vector<std::uint32_t> b(y.size());
    std::memcpy(b.data(), y.data(), y.size() * sizeof(float));
    return b;
  };
  for (const vmath::Kernels* k : variants) {
    SCOPED_TRACE(k->isa);
    EXPECT_EQ(bits(k->exp), bits(base.exp));
    EXPECT_EQ(bits(k->erf), bits(base.erf));
    EXPECT_EQ(bits(k->gelu), bits(base.gelu));
    EXPECT_EQ(bits(k->sigmoid), bits(base.sigmoid));
    EXPECT_EQ(k->max(x.data(), n - 2), base.max(x.data(), n - 2));
    float lo[2], hi[2];
    k->min_max(x.data(), n, &lo[0], &hi[0]);
    base.min_max(x.data(), n, &lo[1], &hi[1]);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(lo[0]), std::bit_cast<std::uint32_t>(lo[1]));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(hi[0]), std::bit_cast<std::uint32_t>(hi[1]));
    EXPECT_EQ(k->sum(x.data(), n - 2), base.sum(x.data(), n - 2));
    EXPECT_EQ(k->sum_squared_deviations(x.data(), n - 2, 0.5), base.sum_squared_deviations(x.data(), n - 2, 0.5));
    std::vector<double> sums[2] = {std::vector<double>(101), std::vector<double>(101)};
    std::vector<float> row_lo[2] = {std::vector<float>(101), std::vector<float>(101)};
    std::vector<float> row_hi[2] = {std::vector<float>(101), std::vector<float>(101)};
    k->row_sums_and_ranges(x.data(), 101, 99, sums[0].data(), row_lo[0].data(), row_hi[0].data());
    base.row_sums_and_ranges(x.data(), 101, 99, sums[1].data(), row_lo[1].data(), row_hi[1].data());
    EXPECT_EQ(std::memcmp(sums[0].data(), sums[1].data(), 101 * sizeof(double)), 0);
    EXPECT_EQ(row_lo[0], row_lo[1]);
    EXPECT_EQ(row_hi[0], row_hi[1]);
    std::vector<std::int8_t> q8[2] = {std::vector<std::int8_t>(x.size()), std::vector<std::int8_t>(x.size())};
    k->quantize_i8(x.data(), n, 0.37f, 3.0f, -127, 127, 3, q8[0].data());
    base.quantize_i8(x.data(), n, 0.37f, 3.0f, -127, 127, 3, q8[1].data());
    EXPECT_EQ(q8[0], q8[1]);
    std::vector<std::uint16_t> q16[2] = {std::vector<std::uint16_t>(x.size()), std::vector<std::uint16_t>(x.size())};
    k->quantize_u16(x.data(), n, 0.0125f, 30000.0f, 0, 65535, 0, q16[0].data());
    base.quantize_u16(x.data(), n, 0.0125f, 30000.0f, 0, 65535, 0, q16[1].data());
    EXPECT_EQ(q16[0], q16[1]);
    std::vector<std::int32_t> q32[2] = {std::vector<std::int32_t>(x.size()), std::vector<std::int32_t>(x.size())};
    const std::int32_t low = std::numeric_limits<std::int32_t>::lowest(), high = std::numeric_limits<std::int32_t>::max();
    k->quantize_i32(x.data(), n, 1e-8f, 0.0f, low, high, low, q32[0].data());  // saturates both ways
    base.quantize_i32(x.data(), n, 1e-8f, 0.0f, low, high, low, q32[1].data());
    EXPECT_EQ(q32[0], q32[1]);
  }
}

TEST(VectorMath, RowSumsAndRangesAreThoseOfEachRowAlone) {
  auto x = sweep(-50.0f, 70.0f, 4099);
  x[5] = NAN;
  x[40] = -0.0f;
  x[41] = 0.0f;
  for (std::int64_t inner : {1, 7, 16, 17, 64, 100}) {
    const std::int64_t rows = static_cast<std::int64_t>(x.size()) / inner;
    std::vector<double> sums(static_cast<std::size_t>(rows)), alone(sums.size());
    std::vector<float> lo(sums.size()), hi(sums.size());
    vmath::row_sums_and_ranges(x.data(), rows, inner, sums.data(), lo.data(), hi.data());
    for (std::int64_t r = 0; r < rows; ++r) {
      SCOPED_TRACE("inner " + std::to_string(inner) + " row " + std::to_string(r));
      const float* row = x.data() + r * inner;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(sums[static_cast<std::size_t>(r)]),
                std::bit_cast<std::uint64_t>(vmath::sum(row, inner)));
      float l = 0, h = 0;
      vmath::min_max(row, inner, &l, &h);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(lo[static_cast<std::size_t>(r)]), std::bit_cast<std::uint32_t>(l));
      EXPECT_EQ(std::bit_cast<std::uint32_t>(hi[static_cast<std::size_t>(r)]), std::bit_cast<std::uint32_t>(h));
    }
    // Sums alone, without ranges (a row with a NaN sums to NaN: compared as bits).
    vmath::row_sums_and_ranges(x.data(), rows, inner, alone.data(), nullptr, nullptr);
    EXPECT_EQ(std::memcmp(alone.data(), sums.data(), sums.size() * sizeof(double)), 0);
  }
}

TEST(VectorMath, MinMaxSkipsNaNsAndSaysWhenThereIsNoNumber) {
  std::vector<float> x = sweep(-3.0f, 5.0f, 1001);
  x[17] = NAN;
  x[500] = -7.5f;
  x.push_back(NAN);
  float lo = 0, hi = 0;
  vmath::min_max(x.data(), static_cast<std::int64_t>(x.size()), &lo, &hi);
  EXPECT_EQ(lo, -7.5f);
  EXPECT_EQ(hi, 5.0f);
  // Every length around the 16 lanes, the extremes at the end.
  for (std::int64_t n = 1; n < 40; ++n) {
    std::vector<float> y(static_cast<std::size_t>(n), 1.0f);
    y.back() = -INFINITY;
    y.front() = INFINITY;
    vmath::min_max(y.data(), n, &lo, &hi);
    EXPECT_EQ(lo, n == 1 ? INFINITY : -INFINITY) << n;
    EXPECT_EQ(hi, INFINITY) << n;
  }
  const float nans[3] = {NAN, NAN, NAN};
  vmath::min_max(nans, 3, &lo, &hi);
  EXPECT_GT(lo, hi);
  vmath::min_max(nans, 0, &lo, &hi);
  EXPECT_GT(lo, hi);
}

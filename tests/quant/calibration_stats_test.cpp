// Calibration statistics: histograms that stream, and the range each method picks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

#include "quant/calibration/collector.h"

namespace winml::quant {
namespace {

std::vector<float> normal(std::size_t n, std::uint32_t seed, float sigma = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, sigma);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(Histogram, CountsEveryValueAndGrowsByWholeBins) {
  Histogram h(Histogram::Mode::kSigned, 100);
  std::vector<float> a = {-1.0f, 0.0f, 0.25f, 1.0f};
  h.add(a);
  EXPECT_DOUBLE_EQ(h.threshold(), 1.0);
  EXPECT_EQ(h.counts().size(), 100u);
  double stride = h.stride();
  std::vector<std::uint64_t> before = h.counts();
  std::vector<float> b = {2.5f, -0.5f};
  h.add(b);
  EXPECT_EQ(h.total(), 6u);
  EXPECT_DOUBLE_EQ(h.stride(), stride);  // same bin width: old bins map one to one
  EXPECT_GE(h.threshold(), 2.5);
  std::size_t offset = (h.counts().size() - 100) / 2;
  std::uint64_t moved = 0;
  for (std::size_t i = 0; i < 100; ++i) moved += h.counts()[i + offset] >= before[i];
  EXPECT_EQ(moved, 100u);
  EXPECT_EQ(h.min(), -1.0f);
  EXPECT_EQ(h.max(), 2.5f);
}

TEST(Histogram, StaysBoundedWhenRangesExplode) {
  Histogram h(Histogram::Mode::kSigned, 64, 1024);
  std::vector<float> v = {1e-3f};
  h.add(v);
  for (float r : {1.0f, 1e3f, 1e6f}) {
    std::vector<float> w = {r, -r};
    h.add(w);
    EXPECT_LE(h.counts().size(), 1024u);
  }
  EXPECT_EQ(h.total(), 7u);
  EXPECT_GE(h.threshold(), 1e6);
}

TEST(Histogram, AllZerosThenValues) {
  Histogram h(Histogram::Mode::kSigned, 10);
  std::vector<float> z(5, 0.0f);
  h.add(z);
  std::vector<float> v = {1.0f};
  h.add(v);
  EXPECT_EQ(h.total(), 6u);
  EXPECT_EQ(h.counts()[5], 5u + 0u);  // zeros sit in the bin starting at 0
}

TEST(Ranges, MinMaxSymmetricAndNot) {
  EXPECT_EQ(minmax_range(-1.0f, 3.0f, false), (TensorRange{-1.0f, 3.0f}));
  EXPECT_EQ(minmax_range(-1.0f, 3.0f, true), (TensorRange{-3.0f, 3.0f}));
}

TEST(Ranges, PercentileCutsTails) {
  CalibrationOptions o;
  o.method = CalibrationMethod::kPercentile;
  o.percentile = 99.0;
  o.num_bins = 2048;
  RangeCollector c(o);
  auto v = normal(200000, 1);
  c.add(v);
  TensorRange r = c.range();
  // 0.5% in each tail of a standard normal: about +-2.576.
  EXPECT_NEAR(r.lo, -2.576f, 0.05f);
  EXPECT_NEAR(r.hi, 2.576f, 0.05f);
  o.symmetric = true;  // 99% of |x|: about 2.576 as well
  RangeCollector s(o);
  s.add(v);
  EXPECT_NEAR(s.range().hi, 2.576f, 0.05f);
  EXPECT_EQ(s.range().lo, -s.range().hi);
  o.percentile = 100.0;
  RangeCollector all(o);
  all.add(v);
  auto [mn, mx] = std::minmax_element(v.begin(), v.end());
  EXPECT_LE(all.range().hi, std::max(-*mn, *mx));
  EXPECT_GE(all.range().hi, std::max(-*mn, *mx) * 0.99f);
}

TEST(Ranges, EntropyIgnoresRareOutliers) {
  CalibrationOptions o;
  o.method = CalibrationMethod::kEntropy;
  o.num_bins = 2048;
  RangeCollector c(o);
  auto v = normal(100000, 2);
  v.push_back(60.0f);
  v.push_back(-60.0f);
  c.add(v);
  TensorRange r = c.range();
  EXPECT_LT(r.hi, 20.0f);  // far inside the outliers
  EXPECT_GT(r.hi, 2.5f);   // but keeps the bulk of the distribution
  EXPECT_NEAR(r.lo, -r.hi, 0.1f);
}

TEST(Ranges, EntropyOfUniformKeepsNearlyAll) {
  CalibrationOptions o;
  o.method = CalibrationMethod::kEntropy;
  RangeCollector c(o);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(100000);
  for (auto& x : v) x = d(rng);
  c.add(v);
  EXPECT_GT(c.range().hi, 0.9f);
}

TEST(Ranges, StreamingMatchesOrderAndIsDeterministic) {
  CalibrationOptions o;
  o.method = CalibrationMethod::kEntropy;
  auto run = [&] {
    RangeCollector c(o);
    for (std::uint32_t s = 0; s < 5; ++s) {
      auto v = normal(5000, 10 + s, 1.0f + s);
      c.add(v);
    }
    return c.range();
  };
  EXPECT_EQ(run(), run());
}

// Runs tiles in reverse, as another thread interleaving might.
ParallelFor reversed() {
  return [](std::int64_t n, const std::function<void(std::int64_t)>& fn) {
    for (std::int64_t i = n - 1; i >= 0; --i) fn(i);
  };
}

TEST(ParallelStatistics, SameResultsWhateverTheTileOrder) {
  auto v = normal(kChunk * 5 + 123, 9, 3.0f);
  v[kChunk * 2 + 7] = std::numeric_limits<float>::quiet_NaN();
  MinMax a = min_max(v), b = min_max(v, reversed());
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.max, b.max);
  for (auto mode : {Histogram::Mode::kSigned, Histogram::Mode::kAbsolute}) {
    Histogram seq(mode, 2048), par(mode, 2048);
    seq.add(v);
    par.add(v, reversed());
    EXPECT_EQ(seq.counts(), par.counts());
    EXPECT_EQ(seq.total(), v.size() - 1);  // the NaN is not counted
  }
  v[kChunk * 2 + 7] = 0.5f;
  std::vector<std::int64_t> shape = {5, 3, static_cast<std::int64_t>(v.size() / 15)};
  std::span<const float> cut(v.data(), static_cast<std::size_t>(5 * 3 * shape[2]));
  ChannelMean m1(1), m2(1);
  m1.add(cut, shape);
  m2.add(cut, shape, reversed());
  EXPECT_EQ(m1.means(), m2.means());
  ASSERT_EQ(m1.means().size(), 3u);
}

TEST(ChannelMeans, PerAxisIncludingLast) {
  // [2, 3] with channels on axis 1 (and -1): column means.
  std::vector<float> v = {1, 2, 3, 5, 6, 7};
  std::vector<std::int64_t> shape = {2, 3};
  ChannelMean by_axis(1), by_last(-1), rows(0);
  by_axis.add(v, shape);
  by_last.add(v, shape);
  rows.add(v, shape);
  EXPECT_EQ(by_axis.means(), (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(by_last.means(), by_axis.means());
  EXPECT_EQ(rows.means(), (std::vector<double>{2, 6}));
}

TEST(ChannelMeans, RangeTakenWithTheSumsIsTheWholeTensorsMinMax) {
  // Long rows (taken row by row, in parallel or not) and short ones (one pass).
  auto v = normal(3 * 8 * 4000, 4, 2.0f);
  v[5 * 1000 + 17] = std::numeric_limits<float>::quiet_NaN();
  v[17 * 1000 + 3] = -40.0f;
  for (const std::vector<std::int64_t>& shape : {std::vector<std::int64_t>{3, 8, 4000}, {12000, 8}}) {
    for (const ParallelFor& parallel : {ParallelFor{}, reversed()}) {
      MinMax range;
      auto with = channel_sums(v, shape, 1, parallel, &range);
      auto without = channel_sums(v, shape, 1, parallel);
      ASSERT_TRUE(with && without);
      ASSERT_EQ(with->sums.size(), without->sums.size());  // (bit for bit: a channel with the NaN sums to NaN)
      EXPECT_EQ(std::memcmp(with->sums.data(), without->sums.data(), with->sums.size() * sizeof(double)), 0);
      const MinMax whole = min_max(v);
      EXPECT_TRUE(range.any);
      EXPECT_EQ(range.min, whole.min);
      EXPECT_EQ(range.max, whole.max);
      EXPECT_EQ(range.min, -40.0f);
    }
  }
  // All NaN: no range, as min_max says.
  std::vector<float> nans(2 * 100, std::numeric_limits<float>::quiet_NaN());
  MinMax none;
  ASSERT_TRUE(channel_sums(nans, std::vector<std::int64_t>{2, 100}, 0, {}, &none));
  EXPECT_FALSE(none.any);
}

TEST(CalibrationStats, OnlyRequestedTensorsAndUnobservedReported) {
  CalibrationOptions o;
  CalibrationStats stats(o, {"a", "b"});
  EXPECT_TRUE(stats.wants("a"));
  EXPECT_FALSE(stats.wants("c"));
  std::vector<float> v = {-2.0f, 5.0f};
  stats.add("a", v);
  stats.add("c", v);
  auto r = stats.ranges();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r["a"], (TensorRange{-2.0f, 5.0f}));
  EXPECT_EQ(stats.unobserved(), std::vector<std::string>{"b"});
}

}  // namespace
}  // namespace winml::quant

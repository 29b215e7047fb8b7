// Winograd 3x3 convolution: close to a double-precision direct convolution
// for both block sizes, ragged edges, any pads, several images and several
// bands of block rows; the same bits for every thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "runtime/kernels/winograd.h"
#include "runtime/thread_pool.h"
#include "support/model_builder.h"

using namespace winml;
using runtime::kernels::Window;
using runtime::kernels::Winograd3x3;

namespace {

struct Case {
  std::int64_t n, c, k, h, w;
  std::int64_t pad_top, pad_left, pad_bottom, pad_right;
};

Window window_of(const Case& p) {
  Window w;
  w.in = {p.h, p.w};
  w.kernel = {3, 3};
  w.strides = {1, 1};
  w.dilations = {1, 1};
  w.pad_begin = {p.pad_top, p.pad_left};
  w.pad_end = {p.pad_bottom, p.pad_right};
  w.out = {p.h + p.pad_top + p.pad_bottom - 2, p.w + p.pad_left + p.pad_right - 2};
  return w;
}

struct Data {
  std::vector<float> x, weights, bias;
};

Data data_for(const Case& p) {
  return {test::random_floats(static_cast<std::size_t>(p.n * p.c * p.h * p.w), 11),
          test::random_floats(static_cast<std::size_t>(p.k * p.c * 9), 12),
          test::random_floats(static_cast<std::size_t>(p.k), 13)};
}

std::vector<float> winograd(const Case& p, const Data& d, int block, runtime::ThreadPool& pool, bool relu = false) {
  Window w = window_of(p);
  std::vector<float> y(static_cast<std::size_t>(p.n * p.k * w.out[0] * w.out[1]), 7.0f);
  Winograd3x3 conv(d.weights.data(), p.k, p.c, block);
  conv.run(d.x.data(), p.n, w, d.bias.data(), relu, y.data(), pool);
  return y;
}

// The largest error relative to the sum of the magnitudes of the terms.
double worst_error(const Case& p, const Data& d, const std::vector<float>& y) {
  Window w = window_of(p);
  const std::int64_t OH = w.out[0], OW = w.out[1];
  double worst = 0;
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t k = 0; k < p.k; ++k)
      for (std::int64_t oy = 0; oy < OH; ++oy)
        for (std::int64_t ox = 0; ox < OW; ++ox) {
          double sum = d.bias[k], magnitude = std::fabs(d.bias[k]);
          for (std::int64_t c = 0; c < p.c; ++c)
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j) {
                std::int64_t iy = oy + i - p.pad_top, ix = ox + j - p.pad_left;
                if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                double term = double(d.weights[((k * p.c + c) * 3 + i) * 3 + j]) *
                              double(d.x[((n * p.c + c) * p.h + iy) * p.w + ix]);
                sum += term;
                magnitude += std::fabs(term);
              }
          double got = y[((n * p.k + k) * OH + oy) * OW + ox];
          worst = std::max(worst, std::fabs(got - sum) / magnitude);
        }
  return worst;
}

}  // namespace

TEST(Winograd3x3, MatchesADoublePrecisionDirectConvolution) {
  runtime::ThreadPool pool(3);
  for (const Case& p : {Case{2, 16, 24, 9, 13, 1, 1, 1, 1},        // ragged last blocks, two images
                        Case{1, 17, 16, 8, 8, 0, 0, 0, 0},         // no padding
                        Case{1, 16, 19, 7, 11, 0, 2, 2, 0},        // asymmetric pads
                        Case{1, 16, 16, 3, 3, 1, 1, 1, 1},         // one block, mostly padding
                        Case{1, 64, 64, 100, 100, 1, 1, 1, 1}}) {  // several bands of block rows
    Data d = data_for(p);
    for (int block : {2, 4}) {
      // F(4, 3) divides by 6 and 24: its rounding error is ~20x F(2, 3)'s (2e-6 seen).
      double tolerance = block == 2 ? 1e-6 : 1e-5;
      EXPECT_LT(worst_error(p, d, winograd(p, d, block, pool)), tolerance)
          << "F(" << block << ",3) " << p.c << "->" << p.k << " channels, " << p.h << "x" << p.w;
    }
  }
}

TEST(Winograd3x3, IsBitIdenticalForAnyThreadCount) {
  Case p{2, 32, 48, 30, 45, 1, 1, 1, 1};
  Data d = data_for(p);
  for (int block : {2, 4}) {
    runtime::ThreadPool one(1);
    auto reference = winograd(p, d, block, one);
    for (int threads : {2, 5}) {
      runtime::ThreadPool pool(threads);
      EXPECT_EQ(winograd(p, d, block, pool), reference) << threads << " threads, F(" << block << ",3)";
    }
  }
}

// A folded Relu clamps each output as the transform writes it: the bits of
// clamping the unclamped output afterwards (x < 0 ? 0 : x), on every
// channel lane and the channels left over, ragged edges included.
TEST(Winograd3x3, AFoldedReluClampsTheOutputsItWrites) {
  runtime::ThreadPool pool(2);
  for (const Case& p : {Case{2, 16, 19, 9, 13, 1, 1, 1, 1}, Case{1, 16, 16, 7, 11, 0, 2, 2, 0}}) {
    Data d = data_for(p);
    for (int block : {2, 4}) {
      std::vector<float> clamped = winograd(p, d, block, pool);
      std::size_t negative = 0;
      for (float& v : clamped) {
        negative += v < 0;
        v = v < 0 ? 0.0f : v;
      }
      ASSERT_GT(negative, clamped.size() / 4);  // (the clamp matters)
      EXPECT_EQ(winograd(p, d, block, pool, /*relu=*/true), clamped) << "F(" << block << ",3), " << p.k << " channels";
    }
  }
}

TEST(Winograd3x3, SuitsUnitStrideSingleGroup3x3KernelsWithEnoughChannels) {
  runtime::kernels::WindowAttrs attrs;
  EXPECT_TRUE(Winograd3x3::suits(attrs, 1, {64, 64, 3, 3}));
  EXPECT_FALSE(Winograd3x3::suits(attrs, 2, {64, 32, 3, 3}));  // grouped
  EXPECT_FALSE(Winograd3x3::suits(attrs, 1, {64, 3, 3, 3}));   // too few input channels
  EXPECT_FALSE(Winograd3x3::suits(attrs, 1, {64, 64, 5, 5}));
  EXPECT_FALSE(Winograd3x3::suits(attrs, 1, {64, 64, 3}));  // 1-D
  attrs.strides = {2, 2};
  EXPECT_FALSE(Winograd3x3::suits(attrs, 1, {64, 64, 3, 3}));
  attrs.strides = {1, 1};
  attrs.dilations = {2, 2};
  EXPECT_FALSE(Winograd3x3::suits(attrs, 1, {64, 64, 3, 3}));
}

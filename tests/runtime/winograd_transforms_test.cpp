// Every instruction-set copy of Winograd's vector transforms gives the bits
// of the scalar transforms (one tile or one channel at a time), for both
// block sizes and tile counts around the vector width, and writes nothing
// past the floats it was allowed to.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/kernels/winograd_transforms.h"
#include "support/model_builder.h"

using namespace winml;
using namespace winml::runtime::kernels::winograd;

namespace {

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

// Inputs of several magnitudes, so that the transforms' sums round.
std::vector<float> values(std::size_t n, std::uint32_t seed) {
  std::vector<float> v = test::random_floats(n, seed);
  for (std::size_t i = 0; i < n; ++i) v[i] *= std::ldexp(1.0f, static_cast<int>(i % 13) - 6);
  return v;
}

template <int M>
void expect_input_rows_match(const TransformKernels& k) {
  constexpr int A = M + 2;
  for (std::int64_t tiles : {1, 7, 8, 9, 16, 23})
    for (std::int64_t spare : {0, 3}) {  // floats past the tiles it may overwrite
      const std::int64_t width = input_row_width(M, tiles), stride = tiles + 5, writable = tiles + spare;
      const std::vector<float> rows = values(static_cast<std::size_t>(A * width), static_cast<std::uint32_t>(tiles));
      std::vector<float> tmp(static_cast<std::size_t>(A * width));
      std::vector<float> out(static_cast<std::size_t>(A * A * stride), -1234.5f);
      k.input_row(M, rows.data(), width, tiles, tmp.data(), out.data(), stride, writable);
      for (std::int64_t t = 0; t < stride; ++t) {
        float d[A][A], e[A][A];
        for (int i = 0; i < A; ++i)
          for (int j = 0; j < A; ++j) d[i][j] = t < tiles ? rows[i * width + t * M + j] : 0.0f;
        transform_2d(d, e, [](const float* in, float* o) { Transforms<M>::input(in, o); });
        for (int i = 0; i < A; ++i)
          for (int j = 0; j < A; ++j) {
            const float got = out[(i * A + j) * stride + t];
            if (t < tiles) {
              ASSERT_EQ(bits(got), bits(e[i][j])) << k.isa << " F(" << M << ",3) tiles " << tiles << " tile " << t
                                                  << " value " << i << "," << j << ": " << got << " vs " << e[i][j];
            } else if (t >= writable) {
              ASSERT_EQ(got, -1234.5f) << k.isa << " wrote past " << writable << " floats, " << tiles << " tiles";
            }
          }
      }
    }
}

// With and without a bias, with and without the clamp of a folded Relu
// (x < 0 ? 0 : x; a NaN in lane 0 stays NaN).
template <int M>
void expect_outputs_match(const TransformKernels& k) {
  constexpr int A = M + 2;
  const std::int64_t stride = kLanes + 3;
  std::vector<float> p = values(static_cast<std::size_t>(A * A * stride), 77);
  p[0] = std::nanf("");
  const std::vector<float> bias = values(kLanes, 78);
  for (const float* b : {static_cast<const float*>(nullptr), bias.data()})
    for (const bool relu : {false, true}) {
      std::vector<float> out(static_cast<std::size_t>(M * M * kLanes));
      k.output_lanes(M, p.data(), stride, b, relu, out.data());
      std::size_t clamped = 0;
      for (int l = 0; l < kLanes; ++l) {
        float q[A][A], e[M][M];
        for (int i = 0; i < A; ++i)
          for (int j = 0; j < A; ++j) q[i][j] = p[(i * A + j) * stride + l];
        transform_2d(q, e, [](const float* in, float* o) { Transforms<M>::output(in, o); });
        for (int i = 0; i < M; ++i)
          for (int j = 0; j < M; ++j) {
            float want = e[i][j] + (b ? b[l] : 0.0f);
            if (relu && want < 0.0f) want = 0.0f, ++clamped;
            ASSERT_EQ(bits(out[(i * M + j) * kLanes + l]), bits(want))
                << k.isa << " F(" << M << ",3) channel " << l << " value " << i << "," << j << (b ? " bias" : "")
                << (relu ? " relu" : "");
          }
      }
      if (relu) {
        EXPECT_GT(clamped, 0u) << k.isa;
      }
    }
}

}  // namespace

TEST(WinogradTransforms, EveryVariantComputesTheScalarInputTransformsBits) {
  for (const TransformKernels* k : transform_kernels_this_cpu_runs()) {
    expect_input_rows_match<2>(*k);
    expect_input_rows_match<4>(*k);
  }
}

TEST(WinogradTransforms, EveryVariantComputesTheScalarOutputTransformsBits) {
  for (const TransformKernels* k : transform_kernels_this_cpu_runs()) {
    expect_outputs_match<2>(*k);
    expect_outputs_match<4>(*k);
  }
}

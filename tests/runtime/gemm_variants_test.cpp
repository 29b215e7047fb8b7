// The GEMM's one order of operations (runtime/gemm.h): every instruction
// set variant this CPU runs computes each element of C as its start
// followed by one multiply-add per step of the depth, in depth order; the
// AVX2 and AVX-512 variants with one rounding (std::fma), the generic one
// with two. Compared bit for bit with that loop written out, on both sides
// of packed weights, transposed operands, ragged edges, several slabs, a
// bias, a folded Relu, accumulation and alpha.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "runtime/gemm.h"
#include "runtime/thread_pool.h"
#include "support/model_builder.h"

using namespace winml;
using runtime::PackedWeights;
namespace gd = runtime::gemm_detail;

namespace {

struct Shape {
  std::int64_t m, n, k;
  bool ta, tb;
};

// A x B element (i, j) from `start`, the definition written out.
float reference(const Shape& s, const std::vector<float>& a, const std::vector<float>& b, std::int64_t i,
                std::int64_t j, float start, bool fused, float alpha = 1.0f) {
  float acc = start;
  for (std::int64_t q = 0; q < s.k; ++q) {
    float x = s.ta ? a[q * s.m + i] : a[i * s.k + q];
    if (alpha != 1.0f) x *= alpha;
    const float y = s.tb ? b[j * s.k + q] : b[q * s.n + j];
    if (fused) {
      acc = std::fma(x, y, acc);
    } else {
      volatile float product = x * y;  // (rounded on its own, whatever the compiler would fuse)
      acc = acc + product;
    }
  }
  return acc;
}

bool same_bits(float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// Ragged edges of every kernel, several slabs (depths over 384), one row, one column.
const std::vector<Shape> kShapes = {{97, 70, 300, false, false}, {301, 5, 1333, true, false}, {33, 17, 9, true, true},
                                    {49, 130, 600, false, true},  {3, 1, 2, false, false},       {1, 100, 513, false, true},
                                    {64, 49, 1152, false, false}};

std::string name(const gd::Variant& v, const Shape& s, const char* what) {
  return std::string(v.name) + " " + what + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k) + (s.ta ? " ta" : "") + (s.tb ? " tb" : "");
}

}  // namespace

TEST(GemmVariants, ThisCpuRunsAtLeastGeneric) {
  const auto variants = gd::variants_this_cpu_runs();
  ASSERT_FALSE(variants.empty());
  EXPECT_STREQ(variants.back()->name, "generic");
  EXPECT_FALSE(variants.back()->fused);
  for (const gd::Variant* v : variants)
    if (std::string(v->name) != "generic") {
      EXPECT_TRUE(v->fused) << v->name;
    }
}

TEST(GemmVariants, PackedProductsAreTheMultiplyAddsInDepthOrder) {
  for (const gd::Variant* v : gd::variants_this_cpu_runs())
    for (const Shape& s : kShapes)
      for (auto side : {PackedWeights::Side::kLeft, PackedWeights::Side::kRight}) {
        const bool left = side == PackedWeights::Side::kLeft;
        SCOPED_TRACE(name(*v, s, left ? "left" : "right"));
        const auto a = test::random_floats(static_cast<std::size_t>(s.m * s.k), 31);
        const auto b = test::random_floats(static_cast<std::size_t>(s.k * s.n), 32);
        const auto bias = test::random_floats(static_cast<std::size_t>(left ? s.m : s.n), 33);
        const auto before = test::random_floats(static_cast<std::size_t>(s.m * s.n), 34);
        const std::int64_t lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n;
        const auto w = left ? runtime::pack_weights(side, a.data(), lda, s.ta, s.k, s.m)
                            : runtime::pack_weights(side, b.data(), ldb, s.tb, s.k, s.n);
        const float* x = left ? b.data() : a.data();
        const std::int64_t ldx = left ? ldb : lda, x_extent = left ? s.n : s.m;
        const bool trans_x = left ? s.tb : s.ta;
        // From the bias with a Relu, from zero, and onto C.
        for (int mode = 0; mode < 3; ++mode) {
          std::vector<float> c = before;
          gd::TileEdges edges;
          edges.from_start = mode < 2;
          edges.bias = mode == 0 ? bias.data() : nullptr;
          edges.relu = mode == 0;
          v->packed_tile(*w, x, ldx, trans_x, c.data(), s.n, 0, w->extent, 0, x_extent, edges);
          std::int64_t wrong = 0;
          for (std::int64_t i = 0; i < s.m; ++i)
            for (std::int64_t j = 0; j < s.n; ++j) {
              const float start = mode == 2 ? before[i * s.n + j] : mode == 1 ? 0.0f : left ? bias[i] : bias[j];
              float want = reference(s, a, b, i, j, start, v->fused);
              if (edges.relu) want = want < 0.0f ? 0.0f : want;
              wrong += !same_bits(c[i * s.n + j], want);
            }
          EXPECT_EQ(wrong, 0) << "mode " << mode;
        }
      }
}

TEST(GemmVariants, ProductsOfTwoOperandsAreTheMultiplyAddsInDepthOrder) {
  for (const gd::Variant* v : gd::variants_this_cpu_runs())
    for (const Shape& s : kShapes)
      for (float alpha : {1.0f, 0.3f})
        for (bool accumulate : {false, true}) {
          SCOPED_TRACE(name(*v, s, accumulate ? "onto C" : "plain") + " alpha " + std::to_string(alpha));
          const auto a = test::random_floats(static_cast<std::size_t>(s.m * s.k), 41);
          const auto b = test::random_floats(static_cast<std::size_t>(s.k * s.n), 42);
          const auto before = test::random_floats(static_cast<std::size_t>(s.m * s.n), 43);
          std::vector<float> c = before;
          runtime::GemmArgs g;
          g.a = a.data(), g.lda = s.ta ? s.m : s.k, g.trans_a = s.ta;
          g.b = b.data(), g.ldb = s.tb ? s.k : s.n, g.trans_b = s.tb;
          g.c = c.data(), g.ldc = s.n, g.m = s.m, g.n = s.n, g.k = s.k, g.alpha = alpha, g.accumulate = accumulate;
          v->tile(g, 0, s.m, 0, s.n);
          std::int64_t wrong = 0;
          for (std::int64_t i = 0; i < s.m; ++i)
            for (std::int64_t j = 0; j < s.n; ++j)
              wrong += !same_bits(c[i * s.n + j], reference(s, a, b, i, j, accumulate ? before[i * s.n + j] : 0.0f,
                                                            v->fused, alpha));
          EXPECT_EQ(wrong, 0);
        }
}

// What the runtime's own entry points give, tiled over threads, is the
// chosen variant's bits: the same definition end to end.
TEST(GemmVariants, TiledProductsOnThreadsAreTheChosenVariantsBits) {
  runtime::ThreadPool pool(3);
  const bool fused = std::string(runtime::gemm_arithmetic()) == "fma";
  const Shape s{300, 2000, 700, false, false};
  const auto a = test::random_floats(static_cast<std::size_t>(s.m * s.k), 51);
  const auto b = test::random_floats(static_cast<std::size_t>(s.k * s.n), 52);
  std::vector<float> c(static_cast<std::size_t>(s.m * s.n));
  auto w = runtime::pack_weights(PackedWeights::Side::kRight, b.data(), s.n, false, s.k, s.n);
  runtime::sgemm_packed(*w, a.data(), s.k, false, s.m, c.data(), s.n, false, pool);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < s.m; i += 7)
    for (std::int64_t j = 0; j < s.n; j += 3) wrong += !same_bits(c[i * s.n + j], reference(s, a, b, i, j, 0.0f, fused));
  EXPECT_EQ(wrong, 0);
}

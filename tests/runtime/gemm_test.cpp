// The tiled GEMM: correct against a double-precision reference, and
// bit-identical for every thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "runtime/gemm.h"
#include "runtime/thread_pool.h"
#include "support/model_builder.h"

using namespace winml;

namespace {

struct Problem {
  std::int64_t m, n, k;
  bool ta, tb;
};

std::vector<float> multiply(const Problem& p, const std::vector<float>& a, const std::vector<float>& b,
                            runtime::ThreadPool& pool) {
  std::vector<float> c(static_cast<std::size_t>(p.m * p.n), 7.0f);
  runtime::GemmArgs g;
  g.a = a.data();
  g.lda = p.ta ? p.m : p.k;
  g.trans_a = p.ta;
  g.b = b.data();
  g.ldb = p.tb ? p.k : p.n;
  g.trans_b = p.tb;
  g.c = c.data();
  g.ldc = p.n;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  runtime::sgemm(g, pool);
  return c;
}

}  // namespace

TEST(Gemm, MatchesADoublePrecisionReference) {
  runtime::ThreadPool pool(3);
  for (Problem p :
       {Problem{1, 1000, 2048, false, true}, Problem{197, 500, 400, false, false}, Problem{64, 3136, 130, false, false},
        Problem{5, 3, 0, false, false}, Problem{33, 17, 9, true, true}, Problem{2048, 49, 200, true, false}}) {
    auto a = test::random_floats(static_cast<std::size_t>(p.m * p.k), 1);
    auto b = test::random_floats(static_cast<std::size_t>(p.k * p.n), 2);
    auto c = multiply(p, a, b, pool);
    double worst = 0;
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j) {
        double ref = 0;
        for (std::int64_t q = 0; q < p.k; ++q)
          ref += double(p.ta ? a[q * p.m + i] : a[i * p.k + q]) * double(p.tb ? b[j * p.k + q] : b[q * p.n + j]);
        worst = std::max(worst, std::fabs(ref - c[i * p.n + j]) / std::sqrt(double(std::max<std::int64_t>(p.k, 1))));
      }
    EXPECT_LT(worst, 1e-5) << p.m << "x" << p.n << "x" << p.k;
  }
}

TEST(Gemm, IsBitIdenticalForAnyThreadCount) {
  Problem p{300, 2000, 700, false, false};
  auto a = test::random_floats(static_cast<std::size_t>(p.m * p.k), 3);
  auto b = test::random_floats(static_cast<std::size_t>(p.k * p.n), 4);
  runtime::ThreadPool one(1);
  auto reference = multiply(p, a, b, one);
  for (int threads : {2, 3, 8}) {
    runtime::ThreadPool pool(threads);
    auto c = multiply(p, a, b, pool);
    EXPECT_EQ(std::memcmp(c.data(), reference.data(), c.size() * sizeof(float)), 0) << threads << " threads";
  }
}

namespace {

// C = A x B with A (left) or B (right) prepacked, the other operand as given.
std::vector<float> multiply_packed(runtime::PackedWeights::Side side, const Problem& p, const std::vector<float>& a,
                                   const std::vector<float>& b, runtime::ThreadPool& pool) {
  std::vector<float> c(static_cast<std::size_t>(p.m * p.n), 7.0f);
  std::int64_t lda = p.ta ? p.m : p.k, ldb = p.tb ? p.k : p.n;
  if (side == runtime::PackedWeights::Side::kLeft) {
    auto w = runtime::pack_weights(side, a.data(), lda, p.ta, p.k, p.m);
    runtime::sgemm_packed(*w, b.data(), ldb, p.tb, p.n, c.data(), p.n, false, pool);
  } else {
    auto w = runtime::pack_weights(side, b.data(), ldb, p.tb, p.k, p.n);
    runtime::sgemm_packed(*w, a.data(), lda, p.ta, p.m, c.data(), p.n, false, pool);
  }
  return c;
}

}  // namespace

TEST(Gemm, PrepackedWeightsGiveTheSameProductOnEitherSide) {
  runtime::ThreadPool pool(3);
  for (auto side : {runtime::PackedWeights::Side::kLeft, runtime::PackedWeights::Side::kRight}) {
    // Shapes with ragged edges and several tiles (>= 16M multiply-adds).
    for (Problem p : {Problem{1, 1000, 2048, false, true}, Problem{197, 700, 300, false, false},
                      Problem{64, 3136, 130, false, false}, Problem{1001, 5, 333, true, false},
                      Problem{33, 17, 9, true, true}, Problem{600, 49, 700, false, true},
                      Problem{20, 91, 1024, false, true}}) {
      auto a = test::random_floats(static_cast<std::size_t>(p.m * p.k), 5);
      auto b = test::random_floats(static_cast<std::size_t>(p.k * p.n), 6);
      auto c = multiply_packed(side, p, a, b, pool);
      double worst = 0;
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < p.n; ++j) {
          double ref = 0;
          for (std::int64_t q = 0; q < p.k; ++q)
            ref += double(p.ta ? a[q * p.m + i] : a[i * p.k + q]) * double(p.tb ? b[j * p.k + q] : b[q * p.n + j]);
          worst = std::max(worst, std::fabs(ref - c[i * p.n + j]) / std::sqrt(double(p.k)));
        }
      EXPECT_LT(worst, 1e-5) << (side == runtime::PackedWeights::Side::kLeft ? "left " : "right ") << p.m << "x" << p.n
                             << "x" << p.k;
      // Any thread count: the same bits.
      runtime::ThreadPool one(1), eight(8);
      EXPECT_EQ(multiply_packed(side, p, a, b, one), c);
      EXPECT_EQ(multiply_packed(side, p, a, b, eight), c);
    }
  }
}

TEST(Gemm, DeferredPackingFillsTheSamePanelsBeforeWhatComesAfter) {
  std::vector<std::vector<float>> weights;
  for (std::uint32_t seed = 0; seed < 6; ++seed) weights.push_back(test::random_floats(300 * 200, 20 + seed));
  std::vector<std::shared_ptr<const runtime::PackedWeights>> now, deferred;
  for (const auto& w : weights)
    now.push_back(runtime::pack_weights(runtime::PackedWeights::Side::kLeft, w.data(), 300, false, 300, 200));

  runtime::PackTrace trace;
  trace.defer = true;
  bool after_ran_last = false;
  {
    runtime::ScopedPackTrace recording(&trace);
    for (const auto& w : weights)
      deferred.push_back(runtime::pack_weights(runtime::PackedWeights::Side::kLeft, w.data(), 300, false, 300, 200));
    runtime::after_packing([&] {
      after_ran_last = true;
      for (std::size_t i = 0; i < now.size(); ++i)
        after_ran_last &= std::memcmp(deferred[i]->data.get(), now[i]->data.get(), now[i]->bytes()) == 0;
    });
  }
  EXPECT_EQ(trace.deferred.size(), weights.size());  // nothing packed yet
  EXPECT_FALSE(after_ran_last);
  runtime::run_deferred_packing(trace);
  EXPECT_TRUE(trace.deferred.empty());
  EXPECT_TRUE(after_ran_last);  // ran after every panel was filled, and they equal the ones packed at once
  EXPECT_EQ(trace.packed.size(), weights.size());  // recorded in creation order
  for (std::size_t i = 0; i < weights.size(); ++i) EXPECT_EQ(trace.packed[i], deferred[i]);
}

// Every slab of packed weights must start 64-byte aligned, as the kernels'
// vector loads of the panels want. Slabs of an odd extent, back to back,
// did not: a Faster R-CNN's 91-class Gemm (depth 1024) put its second slab
// 32 bytes off, and packing it faulted (SIGSEGV). Slabs of whole panels
// (the extent padded to them) always start aligned: checked where they lie.
TEST(Gemm, EverySlabOfPackedWeightsStartsAlignedForTheKernelsVectorInstructions) {
  using Side = runtime::PackedWeights::Side;
  constexpr std::int64_t kPanel = runtime::PackedWeights::kPanel;
  for (Side side : {Side::kLeft, Side::kRight})
    for (std::int64_t extent : {1, 5, 17, 91, 117, 364, 1001})
      for (std::int64_t k : {100, 153, 1024, 1333, 4099}) {
        auto w = runtime::empty_packed_weights(side, k, extent);
        ASSERT_GT(w->kc, 0);
        EXPECT_EQ(w->slab_stride() * sizeof(float) % 64, 0u) << "extent " << extent << ", depth " << k;
        EXPECT_GE(w->slab_stride(), w->kc * extent);
        std::int64_t slabs = 0;
        for (std::int64_t k2 = 0; k2 < k; k2 += w->kc, ++slabs)
          EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w->slab(k2)) % 64, 0u)
              << "extent " << extent << ", depth " << k << ", slab " << slabs << " of depth " << w->kc;
        // The bytes: every step of the depth, a whole number of panels.
        EXPECT_EQ(w->bytes(), static_cast<std::size_t>(k * ((extent + kPanel - 1) / kPanel * kPanel)) * sizeof(float));
      }
  // Sizes read from a blob are checked, not trusted.
  EXPECT_FALSE(runtime::packed_weights_bytes(10, 5, 0));
  EXPECT_FALSE(runtime::packed_weights_bytes(-1, 5, 8));
  EXPECT_FALSE(runtime::packed_weights_bytes(std::int64_t{1} << 40, std::int64_t{1} << 40, 8));
  EXPECT_FALSE(runtime::packed_weights_bytes(8, INT64_MAX, 8));
  EXPECT_EQ(runtime::packed_weights_bytes(0, 5, 0), 0u);
  EXPECT_EQ(runtime::packed_weights_bytes(16, 91, 8), 16 * 96 * sizeof(float));  // 91 padded to 6 panels
}

// Every packed float is where the layout (gemm.h, PackedWeights) puts it:
// in slab s, panel p, step kk, lane r, the weight at extent index
// p * kPanel + r and depth s * kc + kk, or zero past the extent. On both
// sides, plain and transposed, with a leading dimension wider than the
// weights, depths that are not multiples of 4 and over several slabs, and
// negative zeros and NaN payloads, which must arrive bit for bit.
TEST(Gemm, PackedPanelsHoldEveryWeightWhereTheLayoutPutsIt) {
  using Side = runtime::PackedWeights::Side;
  constexpr std::int64_t P = runtime::PackedWeights::kPanel;
  for (Side side : {Side::kLeft, Side::kRight})
    for (bool trans : {false, true})
      for (auto [k, extent] : {std::pair<std::int64_t, std::int64_t>{7, 16}, {77, 130}, {1333, 48}, {258, 91}, {3, 5}}) {
        SCOPED_TRACE(std::to_string(k) + "x" + std::to_string(extent) + (trans ? " transposed" : "") +
                     (side == Side::kLeft ? " left" : " right"));
        const bool extent_rows = (side == Side::kLeft) != trans;
        const std::int64_t rows = extent_rows ? extent : k, cols = extent_rows ? k : extent, ld = cols + 3;
        std::vector<float> w = test::random_floats(static_cast<std::size_t>(rows * ld), 11);
        w[0] = -0.0f;
        std::uint32_t payload = 0x7fc01234u;
        std::memcpy(&w[w.size() / 2], &payload, sizeof payload);
        auto at = [&](std::int64_t e, std::int64_t d) { return extent_rows ? w[e * ld + d] : w[d * ld + e]; };
        auto p = runtime::pack_weights(side, w.data(), ld, trans, k, extent);
        const std::int64_t padded = p->padded_extent();
        std::int64_t wrong = 0;
        for (std::int64_t d = 0; d < k; ++d)
          for (std::int64_t e = 0; e < padded; ++e) {
            const std::int64_t s = d / p->kc, kk = d % p->kc, depth = std::min(p->kc, k - s * p->kc);
            const float got = p->data.get()[s * p->slab_stride() + (e / P) * P * depth + kk * P + e % P];
            const float want = e < extent ? at(e, d) : 0.0f;
            if (std::memcmp(&got, &want, sizeof got) != 0) ++wrong;
          }
        EXPECT_EQ(wrong, 0);
      }
}

// Weights computed in blocks (Winograd's transforms) are packed block by
// block: ranges of the extent packed alone must fill exactly the bytes the
// whole packs, on either side, plain or transposed, with a last range that
// ends off a panel boundary and depths over several slabs.
TEST(Gemm, PackingRangesFillsTheBytesOfPackingTheWhole) {
  using Side = runtime::PackedWeights::Side;
  constexpr std::int64_t kPanel = runtime::gemm_detail::kRowPanel;
  for (Side side : {Side::kLeft, Side::kRight})
    for (bool trans : {false, true})
      for (auto [k, extent] :
           {std::pair<std::int64_t, std::int64_t>{77, 130}, {1500, 100}, {9, kPanel}, {1024, 91}, {1333, 117}}) {
        SCOPED_TRACE(std::to_string(k) + "x" + std::to_string(extent) + (trans ? " transposed" : "") +
                     (side == Side::kLeft ? " left" : " right"));
        // Stored with the extent as rows ([extent, k]) when the side's plain
        // (left) or transposed (right) layout says so, else as columns.
        const bool extent_rows = (side == Side::kLeft) != trans;
        const std::vector<float> w = test::random_floats(static_cast<std::size_t>(k * extent), 5);
        const std::int64_t ld = extent_rows ? k : extent;
        auto whole = runtime::empty_packed_weights(side, k, extent);
        runtime::fill_packed_weights(*whole, w.data(), ld, trans);
        for (std::int64_t block : {kPanel, 2 * kPanel}) {
          auto ranges = runtime::empty_packed_weights(side, k, extent);
          for (std::int64_t e0 = 0; e0 < extent; e0 += block) {
            const std::int64_t e1 = std::min(extent, e0 + block);
            runtime::fill_packed_range(*ranges, w.data() + (extent_rows ? e0 * ld : e0), ld, trans, e0, e1);
          }
          EXPECT_EQ(std::memcmp(ranges->data.get(), whole->data.get(), whole->bytes()), 0) << block;
        }
        if (extent > kPanel) {  // a range off the panels is refused
          auto bad = runtime::empty_packed_weights(side, k, extent);
          EXPECT_THROW(runtime::fill_packed_range(*bad, w.data(), ld, trans, 1, extent), std::logic_error);
          EXPECT_THROW(runtime::fill_packed_range(*bad, w.data(), ld, trans, 0, kPanel + 1), std::logic_error);
        }
      }
}

namespace {

// One packed product of the tests below: weights packed on one side, the
// other operand, and a bias along the weights' extent.
struct PackedCase {
  bool left;
  Problem p;
  std::vector<float> a, b, bias;
  std::int64_t lda, ldb;
  std::shared_ptr<const runtime::PackedWeights> w;

  void product(std::vector<float>& c, bool accumulate, runtime::ThreadPool& pool, const float* start = nullptr,
               bool relu = false) const {
    if (left) runtime::sgemm_packed(*w, b.data(), ldb, p.tb, p.n, c.data(), p.n, accumulate, pool, start, relu);
    else runtime::sgemm_packed(*w, a.data(), lda, p.ta, p.m, c.data(), p.n, accumulate, pool, start, relu);
  }
  std::string name() const {
    return std::string(left ? "left " : "right ") + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
           std::to_string(p.k);
  }
};

// Both sides, on the ragged edges of every kernel path, several slabs,
// tiles, and no depth; operands from seeds `seed`, `seed` + 1, + 2.
template <typename Fn>
void for_each_packed_case(std::uint32_t seed, Fn&& fn) {
  for (auto side : {runtime::PackedWeights::Side::kLeft, runtime::PackedWeights::Side::kRight})
    for (Problem p : {Problem{197, 700, 300, false, false}, Problem{1001, 5, 1333, true, false},
                      Problem{33, 17, 9, true, true}, Problem{600, 49, 700, false, true}, Problem{3, 1, 2, false, false},
                      Problem{26, 31, 0, false, false}, Problem{20, 91, 1024, false, true}}) {
      PackedCase c{side == runtime::PackedWeights::Side::kLeft, p};
      c.a = test::random_floats(static_cast<std::size_t>(p.m * p.k), seed);
      c.b = test::random_floats(static_cast<std::size_t>(p.k * p.n), seed + 1);
      c.lda = p.ta ? p.m : p.k, c.ldb = p.tb ? p.k : p.n;
      c.w = c.left ? runtime::pack_weights(side, c.a.data(), c.lda, p.ta, p.k, p.m)
                   : runtime::pack_weights(side, c.b.data(), c.ldb, p.tb, p.k, p.n);
      c.bias = test::random_floats(static_cast<std::size_t>(c.left ? p.m : p.n), seed + 2);
      fn(static_cast<const PackedCase&>(c));
    }
}

}  // namespace

TEST(Gemm, PackedProductsStartFromTheBiasWithTheBitsOfFillingCFirst) {
  runtime::ThreadPool pool(3);
  for_each_packed_case(7, [&](const PackedCase& c) {
    const Problem& p = c.p;
    for (const float* start : {c.bias.data(), static_cast<const float*>(nullptr)}) {
      SCOPED_TRACE(c.name() + (start ? " bias" : " zero"));
      // C filled with its start, the product accumulated onto it...
      std::vector<float> filled(static_cast<std::size_t>(p.m * p.n));
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < p.n; ++j)
          filled[static_cast<std::size_t>(i * p.n + j)] = !start ? 0.0f : c.left ? start[i] : start[j];
      c.product(filled, true, pool);
      // ...and C started from it: what C held before (NaN) never shows.
      std::vector<float> started(filled.size(), std::nanf(""));
      c.product(started, false, pool, start);
      EXPECT_EQ(std::memcmp(started.data(), filled.data(), filled.size() * sizeof(float)), 0);
    }
  });
}

// A folded Relu: the last slab clamps the sums as it stores them (from the
// bias, from zero, or onto C), the bits of clamping afterwards (NaN and -0
// kept); every kernel path's ragged edges, several slabs, and no depth.
TEST(Gemm, PackedProductsClampAtZeroAsTheLastSlabStores) {
  runtime::ThreadPool pool(2);
  for_each_packed_case(17, [&](const PackedCase& c) {
    const Problem& p = c.p;
    auto before = test::random_floats(static_cast<std::size_t>(p.m * p.n), 20);
    before[0] = -0.0f, before[1] = std::nanf("");  // (kept as they are, onto C with no depth)
    for (const bool accumulate : {false, true})
      for (const float* start : {c.bias.data(), static_cast<const float*>(nullptr)}) {
        SCOPED_TRACE(c.name() + (accumulate ? " onto C" : start ? " bias" : " zero"));
        std::vector<float> clamped = before, folded = before;
        c.product(clamped, accumulate, pool, start, false);
        std::size_t negative = 0;
        for (float& v : clamped) {
          negative += v < 0.0f;
          v = v < 0.0f ? 0.0f : v;
        }
        if (p.k > 0 || accumulate || start) {
          EXPECT_GT(negative, 0u);  // (the clamp matters)
        }
        c.product(folded, accumulate, pool, start, true);
        EXPECT_EQ(std::memcmp(folded.data(), clamped.data(), clamped.size() * sizeof(float)), 0);
      }
  });
}

#include "runtime/gemm.h"

#include <xmmintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "base/huge_heap.h"
#include "base/instruction_set.h"
#include "runtime/isa_variants.h"
#include "runtime/panel_arena.h"
#include "runtime/thread_pool.h"

namespace winml::runtime {

namespace {

const gemm_detail::Variant& pick_variant() {
  switch (runtime_instruction_set()) {
    case InstructionSet::kAvx512: return gemm_detail::kAvx512;
    case InstructionSet::kAvx2: return gemm_detail::kAvx2;
    case InstructionSet::kGeneric: break;
  }
  return gemm_detail::kGeneric;
}

const gemm_detail::Variant& variant() {
  static const gemm_detail::Variant& v = pick_variant();
  return v;
}

// Slabs of at most ~256 steps, of equal depth: a function of the depth
// alone, so packed panels are the same bytes everywhere. (Results do not
// depend on it: each slab goes on from the sums the last one stored.)
std::int64_t slab_depth(std::int64_t k) {
  constexpr std::int64_t kMaxDepth = 256;
  if (k <= kMaxDepth + kMaxDepth / 2) return std::max<std::int64_t>(k, 1);
  const std::int64_t slabs = (k + kMaxDepth - 1) / kMaxDepth;
  return (k + slabs - 1) / slabs;
}

// Tile sizes from the shape alone. Eigen packs both operands of every tile,
// so a split along N repacks A (m*k) once per tile and a split along M
// repacks B (k*n): split only the dimension whose opposite operand is
// smaller, and only into tiles of at least ~32M multiply-adds (at most 64).
struct Tiling {
  std::int64_t rows, cols;  // tile extent
  std::int64_t row_tiles, col_tiles;
};

Tiling tiling(std::int64_t m, std::int64_t n, std::int64_t k) {
  constexpr std::int64_t kMinWork = std::int64_t(1) << 25;
  constexpr std::int64_t kMaxTiles = 64;
  std::int64_t work = m * n * std::max<std::int64_t>(k, 1);
  std::int64_t tiles = std::clamp<std::int64_t>(work / kMinWork, 1, kMaxTiles);
  Tiling t{m, n, 1, 1};
  if (m <= n) {
    std::int64_t cols = (n + tiles - 1) / tiles;
    t.cols = std::max<std::int64_t>(64, (cols + 15) / 16 * 16);
  } else {
    std::int64_t rows = (m + tiles - 1) / tiles;
    t.rows = std::max<std::int64_t>(32, (rows + 7) / 8 * 8);
  }
  t.rows = std::min(t.rows, m);
  t.cols = std::min(t.cols, n);
  t.row_tiles = (m + t.rows - 1) / t.rows;
  t.col_tiles = (n + t.cols - 1) / t.cols;
  return t;
}

void zero_rows(float* c, std::int64_t ldc, std::int64_t r0, std::int64_t rows, std::int64_t c0, std::int64_t cols) {
  for (std::int64_t i = 0; i < rows; ++i) std::memset(c + (r0 + i) * ldc + c0, 0, sizeof(float) * cols);
}

void run_tile(const GemmArgs& g, const Tiling& t, std::int64_t index) {
  std::int64_t r = index / t.col_tiles, c = index % t.col_tiles;
  std::int64_t r0 = r * t.rows, c0 = c * t.cols;
  std::int64_t rows = std::min(t.rows, g.m - r0), cols = std::min(t.cols, g.n - c0);
  if (rows <= 0 || cols <= 0) return;
  if (g.k == 0) {  // an empty sum
    if (!g.accumulate) zero_rows(g.c, g.ldc, r0, rows, c0, cols);
    return;
  }
  variant().tile(g, r0, rows, c0, cols);
}

std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

}  // namespace

const char* gemm_isa() { return variant().name; }

std::optional<std::size_t> packed_weights_bytes(std::int64_t k, std::int64_t extent, std::int64_t kc) {
  if (k < 0 || extent < 0 || kc < 0 || (k > 0 && kc == 0)) return std::nullopt;
  if (k == 0 || extent == 0) return 0;
  // Every slab is as deep as it is, each step a whole number of panels.
  constexpr std::int64_t P = PackedWeights::kPanel;
  std::int64_t padded = 0, floats = 0;
  if (__builtin_add_overflow(extent, P - 1, &padded)) return std::nullopt;
  padded = padded / P * P;
  if (__builtin_mul_overflow(k, padded, &floats) || floats > static_cast<std::int64_t>(SIZE_MAX / sizeof(float)))
    return std::nullopt;
  return static_cast<std::size_t>(floats) * sizeof(float);
}

const char* gemm_arithmetic() { return variant().fused ? "fma" : "separate"; }

std::vector<const gemm_detail::Variant*> gemm_detail::variants_this_cpu_runs() {
  return runnable_variants(&kAvx512, &kAvx2, &kGeneric);
}

void sgemm(const GemmArgs& g, ThreadPool& pool) {
  if (g.m <= 0 || g.n <= 0) return;
  Tiling t = tiling(g.m, g.n, g.k);
  pool.parallel_for(t.row_tiles * t.col_tiles, [&](std::int64_t i) { run_tile(g, t, i); });
}

void sgemm_serial(const GemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  Tiling t = tiling(g.m, g.n, g.k);
  for (std::int64_t i = 0; i < t.row_tiles * t.col_tiles; ++i) run_tile(g, t, i);
}

namespace {
thread_local PackTrace* current_trace = nullptr;
}  // namespace

ScopedPackTrace::ScopedPackTrace(PackTrace* trace) : previous_(current_trace) { current_trace = trace; }

ScopedPackTrace::~ScopedPackTrace() { current_trace = previous_; }

std::shared_ptr<const PackedWeights> replay_packed_weights(PackedWeights::Side side, std::int64_t k,
                                                           std::int64_t extent) {
  PackTrace* trace = current_trace;
  if (!trace || trace->mode != PackTrace::Mode::kReplay) return nullptr;
  if (trace->next < trace->packed.size()) {
    const auto& stored = trace->packed[trace->next];
    if (stored->side == side && stored->k == k && stored->extent == extent &&
        stored->kc == slab_depth(k) && std::string_view(stored->isa) == kPanelLayout) {
      ++trace->next;
      ++trace->replayed;
      return stored;
    }
  }
  trace->mode = PackTrace::Mode::kOff;  // out of step (or another layout): pack from here on
  return nullptr;
}

std::shared_ptr<PackedWeights> empty_packed_weights(PackedWeights::Side side, std::int64_t k, std::int64_t extent) {
  auto p = std::make_shared<PackedWeights>();
  p->side = side;
  p->k = k;
  p->extent = extent;
  p->isa = kPanelLayout;
  p->kc = slab_depth(k);
  PackTrace* trace = current_trace;
  if (trace && trace->mode == PackTrace::Mode::kRecord) {
    if (!trace->arena) trace->arena = std::make_shared<PanelArena>();
    p->data = trace->arena->allocate(p->bytes());
    trace->packed.push_back(p);
  } else {
    auto* data = static_cast<float*>(allocate_on_huge_pages(p->bytes()));
    p->data = std::shared_ptr<float>(data, [](float* q) { free_on_huge_pages(q); });
  }
  return p;
}

namespace {

// A whole panel from kPanel rows of `depth` values (`ld` apart): value r of
// step kk at panel[kk * kPanel + r]. In 4x4 blocks (SSE, x86-64's baseline:
// this file is compiled once), not one scattered store per value: packing
// ResNet-50's 132 MB of weights is most of building its plan. Moves only, so
// every bit (NaN payloads and -0 included) arrives as it left.
void transpose_rows(const float* src, std::int64_t ld, std::int64_t depth, float* panel) {
  constexpr std::int64_t P = PackedWeights::kPanel;
  std::int64_t kk = 0;
  for (; kk + 4 <= depth; kk += 4)
    for (std::int64_t r = 0; r < P; r += 4) {
      __m128 a = _mm_loadu_ps(src + r * ld + kk), b = _mm_loadu_ps(src + (r + 1) * ld + kk),
             c = _mm_loadu_ps(src + (r + 2) * ld + kk), d = _mm_loadu_ps(src + (r + 3) * ld + kk);
      _MM_TRANSPOSE4_PS(a, b, c, d);
      _mm_storeu_ps(panel + kk * P + r, a);
      _mm_storeu_ps(panel + (kk + 1) * P + r, b);
      _mm_storeu_ps(panel + (kk + 2) * P + r, c);
      _mm_storeu_ps(panel + (kk + 3) * P + r, d);
    }
  for (; kk < depth; ++kk)
    for (std::int64_t r = 0; r < P; ++r) panel[kk * P + r] = src[r * ld + kk];
}

// Packs the extent range [e0, e1) of the weights, `src` pointing at its
// first element (which lies at (e0, 0) of the whole): in each slab, each
// panel's kPanel values per step, zeros past the extent.
void pack_range(PackedWeights& p, const float* src, std::int64_t ld, bool trans, std::int64_t e0, std::int64_t e1) {
  constexpr std::int64_t P = PackedWeights::kPanel;
  // Stored with the extent as rows ([extent, k]) for plain A and for
  // transposed B; else with the extent as columns ([k, extent]).
  const bool extent_rows = (p.side == PackedWeights::Side::kLeft) != trans;
  const std::int64_t end = std::min(p.padded_extent(), (e1 + P - 1) / P * P);
  for (std::int64_t k2 = 0; k2 < p.k; k2 += p.kc) {
    const std::int64_t depth = std::min(p.kc, p.k - k2);
    float* slab = p.slab(k2);
    for (std::int64_t e = e0; e < end; e += P) {
      float* panel = slab + e * depth;
      const std::int64_t valid = std::max<std::int64_t>(0, std::min(P, e1 - e));
      if (extent_rows && valid == P) {
        transpose_rows(src + (e - e0) * ld + k2, ld, depth, panel);
      } else if (extent_rows) {
        // Row (e + r) of the source holds the panel's value r at every step.
        for (std::int64_t r = 0; r < P; ++r) {
          if (r >= valid) {
            for (std::int64_t kk = 0; kk < depth; ++kk) panel[kk * P + r] = 0.0f;
            continue;
          }
          const float* row = src + (e - e0 + r) * ld + k2;
          for (std::int64_t kk = 0; kk < depth; ++kk) panel[kk * P + r] = row[kk];
        }
      } else {
        for (std::int64_t kk = 0; kk < depth; ++kk) {
          const float* row = src + (k2 + kk) * ld + (e - e0);
          float* out = panel + kk * P;
          std::memcpy(out, row, sizeof(float) * static_cast<std::size_t>(valid));
          std::memset(out + valid, 0, sizeof(float) * static_cast<std::size_t>(P - valid));
        }
      }
    }
  }
}

}  // namespace

void fill_packed_weights(PackedWeights& p, const float* w, std::int64_t ld, bool trans) {
  fill_packed_range(p, w, ld, trans, 0, p.extent);
}

void fill_packed_range(PackedWeights& p, const float* w, std::int64_t ld, bool trans, std::int64_t e0, std::int64_t e1) {
  if (e0 % gemm_detail::kRowPanel != 0 || e0 < 0 || e1 > p.extent || e0 > e1 ||
      (e1 != p.extent && (e1 - e0) % gemm_detail::kRowPanel != 0))
    throw std::logic_error("packed weight range [" + std::to_string(e0) + ", " + std::to_string(e1) +
                           ") does not start and end at panel boundaries");
  if (p.k > 0 && e1 > e0) pack_range(p, w, ld, trans, e0, e1);
}

namespace {
// The installed trace when it defers packing, else nullptr.
PackTrace* deferring_trace() {
  PackTrace* trace = current_trace;
  return trace && trace->mode == PackTrace::Mode::kRecord && trace->defer ? trace : nullptr;
}
}  // namespace

void defer_packing(std::function<void()> work) {
  if (PackTrace* trace = deferring_trace()) trace->deferred.push_back(std::move(work));
  else work();
}

void after_packing(std::function<void()> work) {
  if (PackTrace* trace = deferring_trace()) trace->after.push_back(std::move(work));
  else work();
}

void run_deferred_packing(PackTrace& trace) {
  const auto work = std::exchange(trace.deferred, {});
  const auto after = std::exchange(trace.after, {});
  if (work.size() < 2) {
    for (auto& w : work) w();
  } else {
    // Each piece fills its own panels: the bytes do not depend on the order.
    ThreadPool pool(std::min<int>(ThreadPool::default_threads(), static_cast<int>(work.size())));
    pool.parallel_for(static_cast<std::int64_t>(work.size()),
                      [&](std::int64_t i) { work[static_cast<std::size_t>(i)](); });
  }
  for (auto& w : after) w();
}

std::shared_ptr<const PackedWeights> pack_weights(PackedWeights::Side side, const float* w, std::int64_t ld, bool trans,
                                                  std::int64_t k, std::int64_t extent) {
  if (auto stored = replay_packed_weights(side, k, extent)) return stored;
  auto p = empty_packed_weights(side, k, extent);
  defer_packing([p, w, ld, trans] { fill_packed_weights(*p, w, ld, trans); });
  return p;
}

// Tiles over x's range first, then the weights' range. Each tile packs its
// part of x once per slab, so splitting the weights' range repacks x: tiles
// of at least ~16M multiply-adds keep that small (measured: 8M-64M and x
// ranges of 64-128 are within 5% of each other). Each output element's sum
// is fixed by the packed slabs, whatever the tiling (which, like everything
// here, depends on the shapes alone).
void sgemm_packed(const PackedWeights& w, const float* x, std::int64_t ldx, bool trans_x, std::int64_t x_extent,
                  float* c, std::int64_t ldc, bool accumulate, ThreadPool& pool, const float* bias, bool relu) {
  if (w.extent <= 0 || x_extent <= 0) return;
  bool left = w.side == PackedWeights::Side::kLeft;
  std::int64_t m = left ? w.extent : x_extent, n = left ? x_extent : w.extent;
  const gemm_detail::TileEdges edges{!accumulate, accumulate ? nullptr : bias, relu};
  if (w.k == 0) {  // an empty sum: C is its start
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        float& v = c[i * ldc + j];
        if (!accumulate) v = !bias ? 0.0f : left ? bias[i] : bias[j];
        if (relu) v = v < 0.0f ? 0.0f : v;
      }
    return;
  }
  constexpr std::int64_t kMinWork = std::int64_t(1) << 24;
  std::int64_t tiles = std::clamp<std::int64_t>(m * n * w.k / kMinWork, 1, 64);
  // x ranges of >= 96, in multiples of 48 (whole vectors and row panels of
  // every variant's kernels); weight ranges in whole panels (pairs of them
  // on the right, as AVX-512 reads them).
  std::int64_t x_tiles = std::min(tiles, (x_extent + 95) / 96);
  std::int64_t x_step = round_up((x_extent + x_tiles - 1) / x_tiles, 48);
  x_tiles = (x_extent + x_step - 1) / x_step;
  std::int64_t w_align = left ? PackedWeights::kPanel : 2 * PackedWeights::kPanel;
  std::int64_t w_tiles = std::clamp<std::int64_t>(tiles / x_tiles, 1, (w.extent + 255) / 256);
  std::int64_t w_step = round_up((w.extent + w_tiles - 1) / w_tiles, w_align);
  w_tiles = (w.extent + w_step - 1) / w_step;
  const auto& v = variant();
  pool.parallel_for(x_tiles * w_tiles, [&](std::int64_t t) {
    std::int64_t xi = t % x_tiles, wi = t / x_tiles;
    std::int64_t x0 = xi * x_step, w0 = wi * w_step;
    if (x0 >= x_extent) return;
    v.packed_tile(w, x, ldx, trans_x, c, ldc, w0, std::min(w.extent, w0 + w_step), x0, std::min(x_extent, x0 + x_step),
                  edges);
  });
}

}  // namespace winml::runtime

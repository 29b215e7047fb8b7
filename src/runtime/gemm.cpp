#include "runtime/gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/thread_pool.h"

namespace winml::runtime {

namespace {

struct Variant {
  const char* name;
  gemm_detail::TileFn fn;
};

Variant pick_variant() {
  __builtin_cpu_init();
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("fma");
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const char* forced = std::getenv("WINML_RUNTIME_ISA");
  std::string want = forced ? forced : "";
  if (want == "generic") avx512 = avx2 = false;
  if (want == "avx2") avx512 = false;
  if (avx512) return {"avx512", gemm_detail::tile_avx512};
  if (avx2) return {"avx2", gemm_detail::tile_avx2};
  return {"generic", gemm_detail::tile_generic};
}

const Variant& variant() {
  static const Variant v = pick_variant();
  return v;
}

// Tile sizes from the shape alone: tiles of at least ~1M multiply-adds,
// at most 64 of them, columns split first (in multiples of 16) then rows.
struct Tiling {
  std::int64_t rows, cols;  // tile extent
  std::int64_t row_tiles, col_tiles;
};

Tiling tiling(std::int64_t m, std::int64_t n, std::int64_t k) {
  constexpr std::int64_t kMinWork = 1 << 20;
  constexpr std::int64_t kMaxTiles = 64;
  std::int64_t work = m * n * std::max<std::int64_t>(k, 1);
  std::int64_t tiles = std::clamp<std::int64_t>(work / kMinWork, 1, kMaxTiles);
  std::int64_t col_tiles = std::clamp<std::int64_t>(std::min(tiles, (n + 63) / 64), 1, kMaxTiles);
  std::int64_t row_tiles = std::clamp<std::int64_t>(std::min(tiles / col_tiles, (m + 31) / 32), 1, kMaxTiles);
  std::int64_t cols = (n + col_tiles - 1) / col_tiles;
  if (col_tiles > 1) cols = (cols + 15) / 16 * 16;
  std::int64_t rows = (m + row_tiles - 1) / row_tiles;
  if (row_tiles > 1) rows = (rows + 7) / 8 * 8;
  return {rows, cols, (m + rows - 1) / rows, (n + cols - 1) / cols};
}

void run_tile(const GemmArgs& g, const Tiling& t, std::int64_t index) {
  std::int64_t r = index / t.col_tiles, c = index % t.col_tiles;
  std::int64_t r0 = r * t.rows, c0 = c * t.cols;
  std::int64_t rows = std::min(t.rows, g.m - r0), cols = std::min(t.cols, g.n - c0);
  if (rows <= 0 || cols <= 0) return;
  if (g.k == 0) {  // an empty sum
    if (!g.accumulate)
      for (std::int64_t i = 0; i < rows; ++i) std::memset(g.c + (r0 + i) * g.ldc + c0, 0, sizeof(float) * cols);
    return;
  }
  variant().fn(g, r0, rows, c0, cols);
}

}  // namespace

const char* gemm_isa() { return variant().name; }

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

}  // namespace winml::runtime

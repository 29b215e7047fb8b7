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

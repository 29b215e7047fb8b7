// Single-precision matrix multiplication for Conv, Gemm and MatMul, on
// Eigen's GEMM kernels.
//
// Determinism: C is cut into tiles whose sizes depend only on (M, N, K),
// each computed single-threaded over the full K; Eigen's own blocking is
// pinned to fixed cache sizes, so the summation order, and therefore every
// bit of the result, is independent of the thread count and of the machine
// (for a given instruction set variant, see gemm_isa()).
#pragma once

#include <cstdint>

namespace winml::runtime {

class ThreadPool;

// C[m,n] (= or +=) alpha * op(A)[m,k] * op(B)[k,n]. All row-major with
// leading dimensions lda/ldb/ldc; op() transposes when trans_* is set, in
// which case A is stored [k,m] (B: [n,k]).
struct GemmArgs {
  const float* a = nullptr;
  std::int64_t lda = 0;
  bool trans_a = false;
  const float* b = nullptr;
  std::int64_t ldb = 0;
  bool trans_b = false;
  float* c = nullptr;
  std::int64_t ldc = 0;
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  bool accumulate = false;  // C += ... instead of C = ...
};

// Tiles over the pool.
void sgemm(const GemmArgs& args, ThreadPool& pool);
// Single-threaded, same tiling (hence same bits) as sgemm.
void sgemm_serial(const GemmArgs& args);

// The instruction set variant in use: "avx512", "avx2" or "generic". Chosen
// once from the CPU; WINML_RUNTIME_ISA=generic|avx2|avx512 overrides it
// (downgrades only).
const char* gemm_isa();

namespace gemm_detail {
// One tile: rows [r0, r0+rows) and columns [c0, c0+cols) of C. Defined once
// per instruction set variant.
using TileFn = void (*)(const GemmArgs& args, std::int64_t r0, std::int64_t rows, std::int64_t c0, std::int64_t cols);
void tile_generic(const GemmArgs&, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
void tile_avx2(const GemmArgs&, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
void tile_avx512(const GemmArgs&, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
}  // namespace gemm_detail

}  // namespace winml::runtime

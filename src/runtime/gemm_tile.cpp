// One GEMM tile on Eigen, compiled once per instruction set variant with
// WINML_GEMM_VARIANT set to its name (see CMakeLists.txt). Each variant
// renames the Eigen namespace so the differently vectorized template
// instances never meet at link time.
#ifndef WINML_GEMM_VARIANT
#error "compile with -DWINML_GEMM_VARIANT=<generic|avx2|avx512>"
#endif

#define WINML_CAT2(a, b) a##b
#define WINML_CAT(a, b) WINML_CAT2(a, b)
#define Eigen WINML_CAT(winml_eigen_, WINML_GEMM_VARIANT)
#define EIGEN_DONT_PARALLELIZE
// Always Eigen's GEMM/GEMV kernels, never its coefficient-wise fallback for
// small products, whose reductions may peel by pointer alignment.
#define EIGEN_GEMM_TO_COEFFBASED_THRESHOLD 1
#include <Eigen/Core>

#include <mutex>

#include "runtime/gemm.h"

namespace winml::runtime::gemm_detail {

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

// Eigen derives its blocking from the CPU's cache sizes; fixed sizes make
// the summation order a function of the matrix shapes alone.
void pin_cache_sizes() {
  static std::once_flag once;
  std::call_once(once, [] { Eigen::setCpuCacheSizes(32 * 1024, 1024 * 1024, 8 * 1024 * 1024); });
}

template <typename A, typename B>
void multiply(const GemmArgs& g, Map& c, const A& a, const B& b) {
  if (g.accumulate) {
    if (g.alpha == 1.0f) c.noalias() += a * b;
    else c.noalias() += g.alpha * (a * b);
  } else {
    if (g.alpha == 1.0f) c.noalias() = a * b;
    else c.noalias() = g.alpha * (a * b);
  }
}

}  // namespace

void WINML_CAT(tile_, WINML_GEMM_VARIANT)(const GemmArgs& g, std::int64_t r0, std::int64_t rows, std::int64_t c0,
                                          std::int64_t cols) {
  pin_cache_sizes();
  Map c(g.c + r0 * g.ldc + c0, rows, cols, Eigen::OuterStride<>(g.ldc));
  // A stored [m,k] (or [k,m] transposed); B stored [k,n] (or [n,k]).
  if (!g.trans_a && !g.trans_b) {
    ConstMap a(g.a + r0 * g.lda, rows, g.k, Eigen::OuterStride<>(g.lda));
    ConstMap b(g.b + c0, g.k, cols, Eigen::OuterStride<>(g.ldb));
    multiply(g, c, a, b);
  } else if (!g.trans_a && g.trans_b) {
    ConstMap a(g.a + r0 * g.lda, rows, g.k, Eigen::OuterStride<>(g.lda));
    ConstMap b(g.b + c0 * g.ldb, cols, g.k, Eigen::OuterStride<>(g.ldb));
    multiply(g, c, a, b.transpose());
  } else if (g.trans_a && !g.trans_b) {
    ConstMap a(g.a + r0, g.k, rows, Eigen::OuterStride<>(g.lda));
    ConstMap b(g.b + c0, g.k, cols, Eigen::OuterStride<>(g.ldb));
    multiply(g, c, a.transpose(), b);
  } else {
    ConstMap a(g.a + r0, g.k, rows, Eigen::OuterStride<>(g.lda));
    ConstMap b(g.b + c0 * g.ldb, cols, g.k, Eigen::OuterStride<>(g.ldb));
    multiply(g, c, a.transpose(), b.transpose());
  }
}

}  // namespace winml::runtime::gemm_detail

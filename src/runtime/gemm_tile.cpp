// GEMM tiles on Eigen, compiled once per instruction set variant with
// WINML_GEMM_VARIANT set to its name (see CMakeLists.txt). Each variant
// renames the Eigen namespace so the differently vectorized template
// instances never meet at link time.
//
// Two paths: plain products through Eigen's expression API (both operands
// packed per call), and products with prepacked weights, which drive Eigen's
// panel kernels (gemm_pack_lhs/rhs, gebp_kernel) directly. Eigen computes in
// column-major terms, so a row-major C[m,n] = A x B is the column-major
// C^T[n,m] = B^T x A^T: B is Eigen's left operand and A its right one.
#ifndef WINML_GEMM_VARIANT
#error "compile with -DWINML_GEMM_VARIANT=<generic|avx2|avx512>"
#endif

#define WINML_CAT2(a, b) a##b
#define WINML_CAT(a, b) WINML_CAT2(a, b)
#define WINML_STR2(a) #a
#define WINML_STR(a) WINML_STR2(a)
#define Eigen WINML_CAT(winml_eigen_, WINML_GEMM_VARIANT)
#define EIGEN_DONT_PARALLELIZE
// Always Eigen's GEMM/GEMV kernels, never its coefficient-wise fallback for
// small products, whose reductions may peel by pointer alignment.
#define EIGEN_GEMM_TO_COEFFBASED_THRESHOLD 1
#include <Eigen/Core>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "runtime/gemm.h"
#include "runtime/scratch.h"

namespace winml::runtime::gemm_detail {

namespace {

using Index = Eigen::Index;
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Traits = Eigen::internal::gebp_traits<float, float>;
template <int Order>
using Mapper = Eigen::internal::const_blas_data_mapper<float, Index, Order>;
using ResMapper = Eigen::internal::blas_data_mapper<float, Index, Eigen::ColMajor>;
template <int Order>
using PackLhs = Eigen::internal::gemm_pack_lhs<float, Index, Mapper<Order>, Traits::mr, Traits::LhsProgress,
                                               typename Traits::LhsPacket4Packing, Order>;
template <int Order>
using PackRhs = Eigen::internal::gemm_pack_rhs<float, Index, Mapper<Order>, Traits::nr, Order>;
using Gebp = Eigen::internal::gebp_kernel<float, float, Index, ResMapper, Traits::mr, Traits::nr, false, false>;

// C for the first and the last slab of a product. Eigen's kernels load C,
// add the slab's product to it and store it. In the first slab of a product
// that does not accumulate (`from_start`), this mapper's loads give what C
// starts from instead (bias[j] per column, or bias[i] per row with
// `kPerRow`, or zero without a bias), so C needs no pass filling it first:
// the same sums, the same bits. In the last slab with `relu`, its stores
// clamp at zero (x < 0 ? 0 : x, NaN and -0 kept), so a folded Relu needs no
// pass either. C is column-major, `stride` apart.
template <bool kPerRow>
class EdgeMapper {
 public:
  struct Edges {
    bool from_start = false;
    const float* bias = nullptr;  // (from_start) at this mapper's first row (kPerRow) or column
    bool relu = false;
  };

  class LinearMapper {  // column j from row i on
   public:
    LinearMapper(float* data, const float* row_bias, float value, const Edges& e)
        : data_(data), row_bias_(row_bias), value_(value), from_start_(e.from_start), relu_(e.relu) {}
    void prefetch(Index k) const { Eigen::internal::prefetch(data_ + k); }
    template <typename Packet>
    Packet loadPacket(Index k) const {
      if (!from_start_) return Eigen::internal::ploadu<Packet>(data_ + k);
      if (kPerRow && row_bias_) return Eigen::internal::ploadu<Packet>(row_bias_ + k);
      return Eigen::internal::pset1<Packet>(value_);
    }
    template <typename Packet>
    void storePacket(Index k, const Packet& p) const {
      Eigen::internal::pstoreu<float, Packet>(data_ + k, relu_ ? clamp(p) : p);
    }

   private:
    float* data_;
    const float* row_bias_;  // (kPerRow) the rows' starts from this row on, or null for zeros
    float value_;            // (!kPerRow) the column's start
    bool from_start_, relu_;
  };

  // What the kernels' scalar edges do to C(i, j): `+= v`.
  class Element {
   public:
    Element(float& c, float start, const Edges& e) : c_(c), start_(start), from_start_(e.from_start), relu_(e.relu) {}
    void operator+=(float v) const {
      const float sum = (from_start_ ? start_ : c_) + v;
      c_ = relu_ && sum < 0.0f ? 0.0f : sum;
    }

   private:
    float& c_;
    float start_;
    bool from_start_, relu_;
  };

  EdgeMapper(float* data, Index stride, const Edges& edges) : data_(data), stride_(stride), edges_(edges) {}

  LinearMapper getLinearMapper(Index i, Index j) const {
    return LinearMapper(data_ + i + j * stride_, kPerRow && edges_.bias ? edges_.bias + i : nullptr, start(i, j),
                        edges_);
  }
  Element operator()(Index i, Index j) const { return Element(data_[i + j * stride_], start(i, j), edges_); }
  // Row i, columns j on.
  template <typename Packet>
  Packet gatherPacket(Index i, Index j) const {
    if (!edges_.from_start) return Eigen::internal::pgather<float, Packet>(data_ + i + j * stride_, stride_);
    if (!kPerRow && edges_.bias) return Eigen::internal::ploadu<Packet>(edges_.bias + j);
    return Eigen::internal::pset1<Packet>(start(i, j));
  }
  template <typename Packet>
  void scatterPacket(Index i, Index j, const Packet& p) const {
    Eigen::internal::pscatter<float, Packet>(data_ + i + j * stride_, edges_.relu ? clamp(p) : p, stride_);
  }

 private:
  template <typename Packet>
  static Packet clamp(const Packet& p) {
    const Packet zero = Eigen::internal::pzero(p);
    return Eigen::internal::pselect(Eigen::internal::pcmp_lt(p, zero), zero, p);
  }
  float start(Index i, Index j) const {
    return !edges_.from_start || !edges_.bias ? 0.0f : kPerRow ? edges_.bias[i] : edges_.bias[j];
  }

  float* data_;
  Index stride_;
  Edges edges_;
};

template <bool kPerRow>
using GebpEdge =
    Eigen::internal::gebp_kernel<float, float, Index, EdgeMapper<kPerRow>, Traits::mr, Traits::nr, false, false>;

static_assert(kRowPanel % Traits::mr == 0, "row panels must split at multiples of mr");

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

void tile(const GemmArgs& g, std::int64_t r0, std::int64_t rows, std::int64_t c0, std::int64_t cols) {
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

std::int64_t slab_depth(std::int64_t k, std::int64_t extent) {
  if (k <= 0) return 1;  // (no slabs; Eigen's heuristic divides by the depth)
  pin_cache_sizes();
  Index kc = k, mc = 1024, nc = std::max<Index>(extent, 1);
  Eigen::internal::computeProductBlockingSizes<float, float, 1, Index>(kc, mc, nc, 1);
  return std::max<Index>(1, std::min<Index>(kc, k));
}

// Packs weights as Eigen's right operand (our A, in slabs of kc x m) or left
// operand (our B, in slabs of n x kc): the extent range [e0, e1), whose
// first element `src` points at. Within a slab, panels follow each other
// along the extent, each `depth` deep: a range starting at a panel boundary
// packs to where the whole would. Slabs start 64-byte aligned
// (PackedWeights::slab_stride): Eigen's lhs packing stores with aligned
// vector instructions.
void pack(PackedWeights& w, const float* src, std::int64_t ld, bool trans, std::int64_t e0, std::int64_t e1) {
  const Index count = e1 - e0;
  for (Index k2 = 0; k2 < w.k; k2 += w.kc) {
    Index depth = std::min<Index>(w.kc, w.k - k2);
    float* out = w.slab(k2) + e0 * depth;
    if (w.side == PackedWeights::Side::kLeft) {
      // A [m,k]: Eigen rhs R(k, j) = A[j*ld + k] (column-major); transposed A [k,m] is row-major.
      if (!trans)
        PackRhs<Eigen::ColMajor>()(out, Mapper<Eigen::ColMajor>(src, ld).getSubMapper(k2, 0), depth, count);
      else PackRhs<Eigen::RowMajor>()(out, Mapper<Eigen::RowMajor>(src, ld).getSubMapper(k2, 0), depth, count);
    } else {
      // B [k,n]: Eigen lhs L(i, k) = B[k*ld + i] (column-major); transposed B [n,k] is row-major.
      if (!trans)
        PackLhs<Eigen::ColMajor>()(out, Mapper<Eigen::ColMajor>(src, ld).getSubMapper(0, k2), depth, count);
      else PackLhs<Eigen::RowMajor>()(out, Mapper<Eigen::RowMajor>(src, ld).getSubMapper(0, k2), depth, count);
    }
  }
}

// Cache blocks: the per-call packed operand in blocks of kMc rows (Eigen
// lhs) or kNc columns (Eigen rhs).
constexpr Index kMc = 192;  // a multiple of kRowPanel
constexpr Index kNc = 512;  // a multiple of nr

// What the slab [k2, k2 + depth) of a product of depth k does at its edges:
// the first starts from the start, the last clamps. `at` is the weights
// index the mapper's C begins at, where its bias begins.
template <bool kPerRow>
typename EdgeMapper<kPerRow>::Edges slab_edges(const TileEdges& edges, Index k2, Index depth, Index k, Index at) {
  const bool from_start = k2 == 0 && edges.from_start;
  return {from_start, from_start && edges.bias ? edges.bias + at : nullptr, k2 + depth >= k && edges.relu};
}

// Packed A (Eigen rhs, weights range = its columns), x = B (Eigen lhs rows).
template <int Order>
void packed_left(const PackedWeights& w, const float* x, Index ldx, float* c, Index ldc, Index w0, Index w1, Index x0,
                 Index x1, const TileEdges& edges) {
  Mapper<Order> lhs(x, ldx);
  Scratch block(sizeof(float) * static_cast<std::size_t>(kMc * w.kc));
  Gebp gebp;
  GebpEdge<false> gebp_edge;
  for (Index i2 = x0; i2 < x1; i2 += kMc) {
    Index mc = std::min(kMc, x1 - i2);
    for (Index k2 = 0; k2 < w.k; k2 += w.kc) {
      Index depth = std::min<Index>(w.kc, w.k - k2);
      PackLhs<Order>()(block.as<float>(), lhs.getSubMapper(i2, k2), depth, mc);
      const float* slab = w.slab(k2);
      for (Index j2 = w0; j2 < w1; j2 += kNc) {
        Index nc = std::min(kNc, w1 - j2);
        // (C's columns are the weights': the bias is per column)
        if (const auto e = slab_edges<false>(edges, k2, depth, w.k, j2); e.from_start || e.relu)
          gebp_edge(EdgeMapper<false>(c + i2 + j2 * ldc, ldc, e), block.as<float>(), slab + j2 * depth, mc, depth, nc,
                    1.0f);
        else gebp(ResMapper(c + i2 + j2 * ldc, ldc), block.as<float>(), slab + j2 * depth, mc, depth, nc, 1.0f);
      }
    }
  }
}

// Packed B (Eigen lhs, weights range = its rows), x = A (Eigen rhs columns).
template <int Order>
void packed_right(const PackedWeights& w, const float* x, Index ldx, float* c, Index ldc, Index w0, Index w1, Index x0,
                  Index x1, const TileEdges& edges) {
  Mapper<Order> rhs(x, ldx);
  Scratch block(sizeof(float) * static_cast<std::size_t>(kNc * w.kc));
  Gebp gebp;
  GebpEdge<true> gebp_edge;
  for (Index j2 = x0; j2 < x1; j2 += kNc) {
    Index nc = std::min(kNc, x1 - j2);
    for (Index k2 = 0; k2 < w.k; k2 += w.kc) {
      Index depth = std::min<Index>(w.kc, w.k - k2);
      PackRhs<Order>()(block.as<float>(), rhs.getSubMapper(k2, j2), depth, nc);
      const float* slab = w.slab(k2);
      for (Index i2 = w0; i2 < w1; i2 += kMc) {
        Index mc = std::min(kMc, w1 - i2);
        // (C's rows are the weights': the bias is per row)
        if (const auto e = slab_edges<true>(edges, k2, depth, w.k, i2); e.from_start || e.relu)
          gebp_edge(EdgeMapper<true>(c + i2 + j2 * ldc, ldc, e), slab + i2 * depth, block.as<float>(), mc, depth, nc,
                    1.0f);
        else gebp(ResMapper(c + i2 + j2 * ldc, ldc), slab + i2 * depth, block.as<float>(), mc, depth, nc, 1.0f);
      }
    }
  }
}

void packed_tile(const PackedWeights& w, const float* x, std::int64_t ldx, bool trans_x, float* c, std::int64_t ldc,
                 std::int64_t w0, std::int64_t w1, std::int64_t x0, std::int64_t x1, const TileEdges& edges) {
  if (w.side == PackedWeights::Side::kLeft) {
    // x = B [k, n]: Eigen lhs L(i, k) = B[k*ldx + i], column-major (row-major when B is stored [n, k]).
    if (!trans_x) packed_left<Eigen::ColMajor>(w, x, ldx, c, ldc, w0, w1, x0, x1, edges);
    else packed_left<Eigen::RowMajor>(w, x, ldx, c, ldc, w0, w1, x0, x1, edges);
  } else {
    // x = A [m, k]: Eigen rhs R(k, j) = A[j*ldx + k], column-major (row-major when A is stored [k, m]).
    if (!trans_x) packed_right<Eigen::ColMajor>(w, x, ldx, c, ldc, w0, w1, x0, x1, edges);
    else packed_right<Eigen::RowMajor>(w, x, ldx, c, ldc, w0, w1, x0, x1, edges);
  }
}

}  // namespace

extern const Variant WINML_CAT(k, WINML_GEMM_VARIANT_NAME) = {WINML_STR(WINML_GEMM_VARIANT), tile, slab_depth, pack,
                                                              packed_tile};

}  // namespace winml::runtime::gemm_detail

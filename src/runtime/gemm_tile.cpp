// GEMM tiles for one instruction set, compiled once per variant with
// WINML_GEMM_VARIANT set to its name and its own flags (CMakeLists.txt).
//
// Every kernel computes each element of C the one way gemm.h defines: its
// start, then one multiply-add per step of the depth, in depth order (fused
// on AVX2 and AVX-512, product then sum on the generic variant). A kernel
// keeps a block of C in registers, a vector along C's rows: it loads each
// step's values of the vector side, broadcasts each of the other side's,
// and multiplies-adds them into the block. Which elements share a block
// (the vector width, the tiles, the slabs) never changes how one is
// computed; a slab goes on from the sums the last one stored in C, exact in
// float.
//
// Weights on the right (Gemm, MatMul: C's columns are theirs) are the
// vector side, read from their packed panels; x's rows are packed per call
// into row panels and broadcast. Weights on the left (Conv: C's rows are
// its output channels) are broadcast from their panels, and x's columns are
// packed per call into column panels, the vector side.
#ifndef WINML_GEMM_VARIANT
#error "compile with -DWINML_GEMM_VARIANT=<generic|avx2|avx512>"
#endif

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runtime/gemm.h"
#include "runtime/scratch.h"

#define WINML_CAT2(a, b) a##b
#define WINML_CAT(a, b) WINML_CAT2(a, b)
#define WINML_STR2(a) #a
#define WINML_STR(a) WINML_STR2(a)

namespace winml::runtime::gemm_detail {

namespace {

using Index = std::int64_t;
constexpr Index P = PackedWeights::kPanel;

// The vector of this variant, and the few operations the kernels use.
#if defined(__AVX512F__)
using Vec = __m512;
constexpr int kLanes = 16;
constexpr bool kFused = true;
[[gnu::always_inline]] inline Vec vzero() { return _mm512_setzero_ps(); }
[[gnu::always_inline]] inline Vec vload(const float* p) { return _mm512_loadu_ps(p); }
[[gnu::always_inline]] inline void vstore(float* p, Vec v) { _mm512_storeu_ps(p, v); }
[[gnu::always_inline]] inline Vec vbroadcast(float x) { return _mm512_set1_ps(x); }
[[gnu::always_inline]] inline Vec vmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
// x < 0 ? 0 : x (NaN and -0 kept): a Relu's bits.
[[gnu::always_inline]] inline Vec vrelu(Vec v) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, vzero(), _CMP_LT_OQ), v, vzero());
}
// 24 of 32 registers hold sums: on the right 12 rows by 2 panels, on the
// left 8 rows by 3 vectors (and at its last columns up to 12 by 2 panels).
constexpr int kRightRows = 12, kLeftRows = 8, kLeftVectors = 3, kTailColumns = 12;
constexpr int kSums = 24;
#elif defined(__AVX2__) && defined(__FMA__)
using Vec = __m256;
constexpr int kLanes = 8;
constexpr bool kFused = true;
[[gnu::always_inline]] inline Vec vzero() { return _mm256_setzero_ps(); }
[[gnu::always_inline]] inline Vec vload(const float* p) { return _mm256_loadu_ps(p); }
[[gnu::always_inline]] inline void vstore(float* p, Vec v) { _mm256_storeu_ps(p, v); }
[[gnu::always_inline]] inline Vec vbroadcast(float x) { return _mm256_set1_ps(x); }
[[gnu::always_inline]] inline Vec vmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
[[gnu::always_inline]] inline Vec vrelu(Vec v) {
  return _mm256_blendv_ps(v, vzero(), _mm256_cmp_ps(v, vzero(), _CMP_LT_OQ));
}
// 12 of 16 registers hold sums.
constexpr int kRightRows = 6, kLeftRows = 4, kLeftVectors = 3, kTailColumns = 6;
constexpr int kSums = 12;
#else
using Vec = __m128;
constexpr int kLanes = 4;
constexpr bool kFused = false;
[[gnu::always_inline]] inline Vec vzero() { return _mm_setzero_ps(); }
[[gnu::always_inline]] inline Vec vload(const float* p) { return _mm_loadu_ps(p); }
[[gnu::always_inline]] inline void vstore(float* p, Vec v) { _mm_storeu_ps(p, v); }
[[gnu::always_inline]] inline Vec vbroadcast(float x) { return _mm_set1_ps(x); }
// x86-64's baseline has no fused multiply-add: the product rounds, then the sum.
[[gnu::always_inline]] inline Vec vmadd(Vec a, Vec b, Vec c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
[[gnu::always_inline]] inline Vec vrelu(Vec v) { return _mm_andnot_ps(_mm_cmplt_ps(v, vzero()), v); }
constexpr int kRightRows = 3, kLeftRows = 4, kLeftVectors = 3, kTailColumns = 3;
constexpr int kSums = 12;
#endif

static_assert(P % kLanes == 0 && P % kLeftRows == 0, "panels hold whole vectors and row groups");

// Packed weights stream through once per product (ResNet-50 has 132 MB of
// them), in runs of a few KiB per panel that the hardware prefetchers, which
// stop at every 4 KiB page, pick up late: each step asks for its panels'
// line this many steps ahead. (A hint: it never changes what is computed.)
constexpr Index kPrefetchSteps = 32;
[[gnu::always_inline]] inline void prefetch(const float* p) {
  _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
}
constexpr int kPanelVectors = P / kLanes;

// Steps of the depth a kernel call covers at most: a slab of the weights
// is taken in equal blocks of no more, so that each call's vector side (a
// group of weight panels, a panel of x's columns) stays in L1, and no block
// is so short that starting and storing its sums dominates.
constexpr Index kDepthBlock = 192;
Index depth_block(Index slab_depth) {
  const Index blocks = (slab_depth + kDepthBlock - 1) / kDepthBlock;
  return (slab_depth + blocks - 1) / blocks;
}

// Where a block of C starts: from C as it is, from zero, or from a bias per
// row or per column.
enum class Start { kC, kZero, kRowBias, kColumnBias };

struct Edge {
  Start start = Start::kC;
  const float* bias = nullptr;  // at the block's first row (kRowBias) or column (kColumnBias)
  bool relu = false;            // clamp as the block is stored
};

// What a slab [k2, k2 + depth) of a product of depth k starts from and ends
// with: the first from the product's start, the others from C; the last
// clamps. `bias` is the product's, along the weights' extent.
Edge slab_edge(const TileEdges& edges, Index k2, Index depth, Index k, Start bias_start) {
  Edge e;
  if (k2 == 0 && edges.from_start) {
    e.start = edges.bias ? bias_start : Start::kZero;
    e.bias = edges.bias;
  }
  e.relu = edges.relu && k2 + depth >= k;
  return e;
}

// A block of C: R rows by NV vectors of columns, `rows` x `cols` of them
// real (the rest is computed from zeros and never stored).
template <int R, int NV>
struct Block {
  static constexpr int kWidth = NV * kLanes;
  Vec acc[R][NV];

  [[gnu::always_inline]] void begin(const float* c, Index ldc, int rows, int cols, const Edge& e) {
    if (rows == R && cols == kWidth) {
      switch (e.start) {
        case Start::kC:
          for (int r = 0; r < R; ++r)
            for (int v = 0; v < NV; ++v) acc[r][v] = vload(c + r * ldc + v * kLanes);
          return;
        case Start::kZero:
          for (int r = 0; r < R; ++r)
            for (int v = 0; v < NV; ++v) acc[r][v] = vzero();
          return;
        case Start::kRowBias:
          for (int r = 0; r < R; ++r)
            for (int v = 0; v < NV; ++v) acc[r][v] = vbroadcast(e.bias[r]);
          return;
        case Start::kColumnBias:
          for (int r = 0; r < R; ++r)
            for (int v = 0; v < NV; ++v) acc[r][v] = vload(e.bias + v * kLanes);
          return;
      }
    }
    // A ragged block goes through a copy, so that nothing past C's edge (or
    // the bias's) is read.
    alignas(64) float buf[R][kWidth] = {};
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < cols; ++j)
        buf[r][j] = e.start == Start::kC          ? c[r * ldc + j]
                    : e.start == Start::kRowBias    ? e.bias[r]
                    : e.start == Start::kColumnBias ? e.bias[j]
                                                    : 0.0f;
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) acc[r][v] = vload(&buf[r][v * kLanes]);
  }

  [[gnu::always_inline]] void finish(float* c, Index ldc, int rows, int cols, bool relu) {
    if (relu)
      for (int r = 0; r < R; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v] = vrelu(acc[r][v]);
    if (rows == R && cols == kWidth) {
      for (int r = 0; r < R; ++r)
        for (int v = 0; v < NV; ++v) vstore(c + r * ldc + v * kLanes, acc[r][v]);
      return;
    }
    alignas(64) float buf[R][kWidth];
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) vstore(&buf[r][v * kLanes], acc[r][v]);
    for (int r = 0; r < rows; ++r) std::memcpy(c + r * ldc, buf[r], sizeof(float) * static_cast<std::size_t>(cols));
  }
};

// Weights on the right: R rows of x (R values per step at xp) by NP panels
// of weights (wp, panels `wstride` apart), `depth` steps.
template <int R, int NP>
void right_block(const float* xp, const float* wp, Index wstride, Index depth, float* c, Index ldc, int cols,
                 const Edge& e) {
  constexpr int NV = NP * kPanelVectors;
  Block<R, NV> b;
  b.begin(c, ldc, R, cols, e);
  for (Index kk = 0; kk < depth; ++kk) {
    Vec w[NV];
    for (int p = 0; p < NP; ++p) prefetch(wp + p * wstride + (kk + kPrefetchSteps) * P);
    for (int v = 0; v < NV; ++v) w[v] = vload(wp + (v / kPanelVectors) * wstride + kk * P + (v % kPanelVectors) * kLanes);
    for (int r = 0; r < R; ++r) {
      const Vec x = vbroadcast(xp[kk * R + r]);
      for (int v = 0; v < NV; ++v) b.acc[r][v] = vmadd(x, w[v], b.acc[r][v]);
    }
  }
  b.finish(c, ldc, R, cols, e.relu);
}

// Panels a block of R rows takes at once: as many as keep kSums sums (up to
// 8), so that few rows (a product with one row) still have enough
// independent sums in flight.
constexpr int panels_for(int rows) {
  const int most = kSums / (rows * kPanelVectors);
  return most >= 8 ? 8 : most >= 4 ? 4 : most >= 2 ? 2 : 1;
}

// right_block for `rows` (1 .. kRightRows, a template argument) and
// `panels` (the last ones of `cols` columns), in blocks of as many panels as
// the rows take.
template <int R = kRightRows>
void right(int rows, int panels, const float* xp, const float* wp, Index wstride, Index depth, float* c, Index ldc,
           int cols, const Edge& e) {
  if constexpr (R > 1)
    if (rows != R) return right<R - 1>(rows, panels, xp, wp, wstride, depth, c, ldc, cols, e);
  constexpr int kMost = panels_for(R);
  Edge part = e;
  while (panels > 0) {
    const int np = panels >= kMost ? kMost : panels >= 2 ? 2 : 1, done = std::min(cols, np * static_cast<int>(P));
    if (np == kMost) right_block<R, kMost>(xp, wp, wstride, depth, c, ldc, done, part);
    else if (np == 2) right_block<R, (kMost >= 2 ? 2 : 1)>(xp, wp, wstride, depth, c, ldc, done, part);
    else right_block<R, 1>(xp, wp, wstride, depth, c, ldc, done, part);
    panels -= np, cols -= done, wp += np * wstride, c += done;
    if (part.bias) part.bias += done;
  }
}

// C rows [0, rows) (x's row panels at xp, `depth` steps each) by the
// weights' columns [0, cols) (panels at wp, `wstride` apart); c and e's
// bias at the block's first row and column.
void right_rows(const float* xp, Index rows, const float* wp, Index wstride, Index depth, float* c, Index ldc,
                Index cols, const Edge& e) {
  // Each group of panels (in L1) meets every row panel (in L2).
  const Index group = panels_for(static_cast<int>(std::min<Index>(rows, kRightRows))) * P;
  for (Index j = 0; j < cols; j += group) {
    const Index jc = std::min(group, cols - j);
    Edge ej = e;
    if (ej.bias) ej.bias += j;
    for (Index i = 0; i < rows; i += kRightRows)
      right(static_cast<int>(std::min<Index>(kRightRows, rows - i)), static_cast<int>((jc + P - 1) / P),
            xp + i * depth, wp + (j / P) * wstride, wstride, depth, c + i * ldc + j, ldc, static_cast<int>(jc), ej);
  }
}

// Weights on the left: kLeftRows rows of weights (broadcast from a panel,
// starting at wp, P values per step) by NV vectors of x's columns (NV *
// kLanes values per step at xp), `depth` steps.
template <int NV>
void left_block(const float* wp, const float* xp, Index depth, float* c, Index ldc, int rows, int cols,
                const Edge& e) {
  constexpr int R = kLeftRows;
  Block<R, NV> b;
  b.begin(c, ldc, rows, cols, e);
  for (Index kk = 0; kk < depth; ++kk) {
    Vec x[NV];
    prefetch(wp + (kk + kPrefetchSteps) * P);
    for (int v = 0; v < NV; ++v) x[v] = vload(xp + kk * (NV * kLanes) + v * kLanes);
    for (int r = 0; r < R; ++r) {
      const Vec w = vbroadcast(wp[kk * P + r]);
      for (int v = 0; v < NV; ++v) b.acc[r][v] = vmadd(w, x[v], b.acc[r][v]);
    }
  }
  b.finish(c, ldc, rows, cols, e.relu);
}

// The left's last columns, fewer than a panel of x's: there the weights are
// the vector side (NP panels, rows along the vectors) and T columns of x are
// broadcast (T values per step, `xs` apart), so no lane computes a column
// that is not there. The block is C's transpose in registers: it starts
// and ends through a copy.
template <int NP, int T>
void left_tail_block(const float* wp, Index wstride, const float* xp, Index xs, Index depth, float* c, Index ldc,
                     int rows, const Edge& e) {
  constexpr int NV = NP * kPanelVectors, kRows = NV * kLanes;
  Vec acc[T][NV];
  alignas(64) float buf[T][kRows] = {};
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < T; ++j)
      buf[j][r] = e.start == Start::kC ? c[r * ldc + j] : e.start == Start::kRowBias ? e.bias[r] : 0.0f;
  for (int j = 0; j < T; ++j)
    for (int v = 0; v < NV; ++v) acc[j][v] = vload(&buf[j][v * kLanes]);
  for (Index kk = 0; kk < depth; ++kk) {
    Vec w[NV];
    for (int p = 0; p < NP; ++p) prefetch(wp + p * wstride + (kk + kPrefetchSteps) * P);
    for (int v = 0; v < NV; ++v) w[v] = vload(wp + (v / kPanelVectors) * wstride + kk * P + (v % kPanelVectors) * kLanes);
    for (int j = 0; j < T; ++j) {
      const Vec x = vbroadcast(xp[kk * xs + j]);
      for (int v = 0; v < NV; ++v) acc[j][v] = vmadd(w[v], x, acc[j][v]);
    }
  }
  for (int j = 0; j < T; ++j)
    for (int v = 0; v < NV; ++v) vstore(&buf[j][v * kLanes], e.relu ? vrelu(acc[j][v]) : acc[j][v]);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < T; ++j) c[r * ldc + j] = buf[j][r];
}

// left_tail_block for `columns` (1 .. kTailColumns, a template argument),
// over `rows` from wp on: in blocks of as many panels as the columns take
// (panels_for), then of fewer at the end.
template <int T = kTailColumns>
void left_tail(int columns, const float* wp, Index wstride, const float* xp, Index xs, Index depth, float* c,
               Index ldc, int rows, const Edge& e) {
  if constexpr (T > 1)
    if (columns != T) return left_tail<T - 1>(columns, wp, wstride, xp, xs, depth, c, ldc, rows, e);
  constexpr int kMost = panels_for(T);
  Edge part = e;
  while (rows > 0) {
    const int panels = (rows + static_cast<int>(P) - 1) / static_cast<int>(P);
    const int np = panels >= kMost ? kMost : panels >= 2 ? 2 : 1, done = std::min(rows, np * static_cast<int>(P));
    if (np == kMost) left_tail_block<kMost, T>(wp, wstride, xp, xs, depth, c, ldc, done, part);
    else if (np == 2) left_tail_block<(kMost >= 2 ? 2 : 1), T>(wp, wstride, xp, xs, depth, c, ldc, done, part);
    else left_tail_block<1, T>(wp, wstride, xp, xs, depth, c, ldc, done, part);
    rows -= done, wp += np * wstride, c += done * ldc;
    if (part.bias) part.bias += done;
  }
}

template <int NV = kLeftVectors>
void left(int vectors, const float* wp, const float* xp, Index depth, float* c, Index ldc, int rows, int cols,
          const Edge& e) {
  if constexpr (NV > 1)
    if (vectors != NV) return left<NV - 1>(vectors, wp, xp, depth, c, ldc, rows, cols, e);
  left_block<NV>(wp, xp, depth, c, ldc, rows, cols, e);
}

// x's rows [i0, i0 + count) over depth [k0, k0 + depth), scaled, into row
// panels of kRightRows (the last may hold fewer), each with its rows'
// values step by step. x is [M, K] (ld), or stored [K, M] when `trans`.
void pack_rows(const float* x, Index ld, bool trans, Index i0, Index count, Index k0, Index depth, float scale,
               float* out) {
  for (Index i = 0; i < count; i += kRightRows) {
    const Index r = std::min<Index>(kRightRows, count - i);
    float* panel = out + i * depth;
    if (trans) {
      for (Index kk = 0; kk < depth; ++kk) {
        const float* src = x + (k0 + kk) * ld + i0 + i;
        for (Index q = 0; q < r; ++q) panel[kk * r + q] = src[q] * scale;
      }
    } else {
      for (Index q = 0; q < r; ++q) {
        const float* src = x + (i0 + i + q) * ld + k0;
        for (Index kk = 0; kk < depth; ++kk) panel[kk * r + q] = src[kk] * scale;
      }
    }
  }
}

// x's columns [j0, j0 + count) over depth [k0, k0 + depth), `width` values
// per step (zeros after the columns). x is [K, N] (ld), or stored [N, K]
// when `trans`.
void pack_columns(const float* x, Index ld, bool trans, Index j0, Index count, Index width, Index k0, Index depth,
                  float* out) {
  if (trans) {
    for (Index kk = 0; kk < depth; ++kk)
      for (Index q = count; q < width; ++q) out[kk * width + q] = 0.0f;
    for (Index q = 0; q < count; ++q) {
      const float* src = x + (j0 + q) * ld + k0;
      for (Index kk = 0; kk < depth; ++kk) out[kk * width + q] = src[kk];
    }
    return;
  }
  for (Index kk = 0; kk < depth; ++kk) {
    const float* src = x + (k0 + kk) * ld + j0;
    std::memcpy(out + kk * width, src, sizeof(float) * static_cast<std::size_t>(count));
    for (Index q = count; q < width; ++q) out[kk * width + q] = 0.0f;
  }
}

// The blocks of the depth a product takes: each weight slab in blocks of at
// most kDepthBlock steps. fn(k0, slab, slab_depth, offset, depth, edge):
// steps [k0, k0 + depth), which lie at `offset` into the slab starting at
// `slab` (of `slab_depth` steps), with what the block starts from and ends
// with (bias along the weights' extent, from its start).
template <typename Fn>
void for_each_depth_block(const PackedWeights& w, const TileEdges& edges, Start bias_start, Fn&& fn) {
  for (Index k2 = 0; k2 < w.k; k2 += w.kc) {
    const Index slab_depth = std::min(w.kc, w.k - k2);
    const float* slab = w.slab(k2);
    const Index block = depth_block(slab_depth);
    for (Index off = 0; off < slab_depth; off += block) {
      const Index depth = std::min(block, slab_depth - off);
      fn(k2 + off, slab, slab_depth, off, depth, slab_edge(edges, k2 + off, depth, w.k, bias_start));
    }
  }
}

// Rows of x packed at a time: their panels stay in L2 while each group of
// weight panels, in L1, meets all of them.
constexpr Index kRowsPerBlock = 16 * kRightRows;

// Weights on the right: weights range [w0, w1) (C's columns, w0 at a
// panel), x range [x0, x1) (C's rows).
void packed_right(const PackedWeights& w, const float* x, Index ldx, bool trans_x, float* c, Index ldc, Index w0,
                  Index w1, Index x0, Index x1, const TileEdges& edges) {
  Scratch block(sizeof(float) * static_cast<std::size_t>(kRowsPerBlock * std::min(w.kc, kDepthBlock)));
  float* xp = block.as<float>();
  for (Index i2 = x0; i2 < x1; i2 += kRowsPerBlock) {
    const Index mc = std::min(kRowsPerBlock, x1 - i2);
    for_each_depth_block(w, edges, Start::kColumnBias,
                         [&](Index k0, const float* slab, Index slab_depth, Index off, Index depth, Edge e) {
                           pack_rows(x, ldx, trans_x, i2, mc, k0, depth, 1.0f, xp);
                           if (e.bias) e.bias += w0;
                           right_rows(xp, mc, slab + w0 * slab_depth + off * P, P * slab_depth, depth,
                                      c + i2 * ldc + w0, ldc, w1 - w0, e);
                         });
  }
}

// Columns of x packed at a time (whole panels of kLeftVectors vectors, the
// rest for the tail kernels): they stay in L2 while each panel, in L1,
// meets every group of weight rows.
constexpr Index kColumnPanel = kLeftVectors * kLanes;
constexpr Index kColumnsPerBlock = 10 * kColumnPanel;
// Rows of weights (whole panels) taken at a time.
constexpr Index kRowChunk = 8 * P;

// Weights on the left: weights range [w0, w1) (C's rows, w0 at a panel),
// x range [x0, x1) (C's columns).
void packed_left(const PackedWeights& w, const float* x, Index ldx, bool trans_x, float* c, Index ldc, Index w0,
                 Index w1, Index x0, Index x1, const TileEdges& edges) {
  constexpr Index W = kColumnPanel;
  Scratch block(sizeof(float) * static_cast<std::size_t>(kColumnsPerBlock * std::min(w.kc, kDepthBlock)));
  float* xp = block.as<float>();
  for (Index j2 = x0; j2 < x1; j2 += kColumnsPerBlock) {
    const Index nc = std::min(kColumnsPerBlock, x1 - j2), whole = nc / W * W, tail = nc - whole;
    for_each_depth_block(w, edges, Start::kRowBias, [&](Index k0, const float* slab, Index slab_depth, Index off,
                                                        Index depth, const Edge& e) {
      for (Index j = 0; j < whole; j += W) pack_columns(x, ldx, trans_x, j2 + j, W, W, k0, depth, xp + j * depth);
      if (tail) pack_columns(x, ldx, trans_x, j2 + whole, tail, tail, k0, depth, xp + whole * depth);
      auto rows_at = [&](Index m) { return slab + (m / P) * P * slab_depth + off * P + m % P; };
      // Rows in chunks whose weights stay in cache while every panel of x,
      // then the last columns, meet them.
      for (Index m0 = w0; m0 < w1; m0 += kRowChunk) {
        const Index m1 = std::min(w1, m0 + kRowChunk);
        for (Index j = 0; j < whole; j += W)
          for (Index m = m0; m < m1; m += kLeftRows) {
            Edge em = e;
            if (em.bias) em.bias += m;
            left(kLeftVectors, rows_at(m), xp + j * depth, depth, c + m * ldc + j2 + j, ldc,
                 static_cast<int>(std::min<Index>(kLeftRows, m1 - m)), static_cast<int>(W), em);
          }
        for (Index j = whole; j < nc; j += kTailColumns) {
          Edge em = e;
          if (em.bias) em.bias += m0;
          left_tail(static_cast<int>(std::min<Index>(kTailColumns, nc - j)), rows_at(m0), P * slab_depth,
                    xp + whole * depth + (j - whole), tail, depth, c + m0 * ldc + j2 + j, ldc,
                    static_cast<int>(m1 - m0), em);
        }
      }
    });
  }
}

void packed_tile(const PackedWeights& w, const float* x, std::int64_t ldx, bool trans_x, float* c, std::int64_t ldc,
                 std::int64_t w0, std::int64_t w1, std::int64_t x0, std::int64_t x1, const TileEdges& edges) {
  if (w.side == PackedWeights::Side::kLeft) packed_left(w, x, ldx, trans_x, c, ldc, w0, w1, x0, x1, edges);
  else packed_right(w, x, ldx, trans_x, c, ldc, w0, w1, x0, x1, edges);
}

// One tile of sgemm, both operands as given: B's columns are packed into
// panels per depth block (as weights on the right would be), A's rows
// scaled by alpha, and the right kernels run.
void tile(const GemmArgs& g, std::int64_t r0, std::int64_t rows, std::int64_t c0, std::int64_t cols) {
  const Index kc = depth_block(g.k), padded = (cols + P - 1) / P * P;
  Scratch b_block(sizeof(float) * static_cast<std::size_t>(padded * kc));
  Scratch a_block(sizeof(float) * static_cast<std::size_t>(kRowsPerBlock * kc));
  float* bp = b_block.as<float>();
  float* ap = a_block.as<float>();
  for (Index k0 = 0; k0 < g.k; k0 += kc) {
    const Index depth = std::min(kc, g.k - k0);
    // B's columns [c0, c0 + cols): element (k, j) at b[k * ldb + j], or b[j * ldb + k] transposed.
    for (Index e = 0; e < padded; e += P) {
      float* panel = bp + e * depth;
      const Index valid = std::max<Index>(0, std::min(P, cols - e));
      for (Index kk = 0; kk < depth; ++kk) {
        float* out = panel + kk * P;
        for (Index q = 0; q < valid; ++q) {
          const Index j = c0 + e + q, k = k0 + kk;
          out[q] = g.trans_b ? g.b[j * g.ldb + k] : g.b[k * g.ldb + j];
        }
        for (Index q = valid; q < P; ++q) out[q] = 0.0f;
      }
    }
    Edge e;
    e.start = k0 == 0 && !g.accumulate ? Start::kZero : Start::kC;
    for (Index i2 = 0; i2 < rows; i2 += kRowsPerBlock) {
      const Index mc = std::min(kRowsPerBlock, rows - i2);
      pack_rows(g.a, g.lda, g.trans_a, r0 + i2, mc, k0, depth, g.alpha, ap);
      right_rows(ap, mc, bp, P * depth, depth, g.c + (r0 + i2) * g.ldc + c0, g.ldc, cols, e);
    }
  }
}

}  // namespace

extern const Variant WINML_CAT(k, WINML_GEMM_VARIANT_NAME) = {WINML_STR(WINML_GEMM_VARIANT), kFused, tile,
                                                              packed_tile};

}  // namespace winml::runtime::gemm_detail

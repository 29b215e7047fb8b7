#include "runtime/kernels/lane_dot.h"

#include <algorithm>
#include <cstring>

#include "runtime/isa_variants.h"

namespace winml::runtime::kernels {

namespace {

constexpr int kLanes = 8;
// Eight floats; one AVX register, or two SSE ones in the generic copy.
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

[[gnu::always_inline]] inline Lanes load(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The last k % 8 positions, zeros after them (their products add +0).
[[gnu::always_inline]] inline Lanes load_tail(const float* p, std::int64_t n) {
  float buffer[kLanes] = {};
  for (std::int64_t l = 0; l < n; ++l) buffer[l] = p[l];
  return load(buffer);
}

[[gnu::always_inline]] inline float combine(Lanes s) {
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

// An R x C block of outputs: R rows of `a` against C rows of `w`, every
// output in its own lanes.
template <int R, int C>
[[gnu::always_inline]] inline void block(const float* a, std::int64_t lda, const float* w, std::int64_t ldw,
                                         std::int64_t k, const float* bias, float* y, std::int64_t ldy) {
  Lanes acc[R][C] = {};
  const std::int64_t full = k - k % kLanes;
  for (std::int64_t p = 0; p < full; p += kLanes) {
    Lanes av[R], wv[C];
    for (int r = 0; r < R; ++r) av[r] = load(a + r * lda + p);
    for (int c = 0; c < C; ++c) wv[c] = load(w + c * ldw + p);
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) acc[r][c] += av[r] * wv[c];
  }
  if (full < k) {
    Lanes av[R], wv[C];
    for (int r = 0; r < R; ++r) av[r] = load_tail(a + r * lda + full, k - full);
    for (int c = 0; c < C; ++c) wv[c] = load_tail(w + c * ldw + full, k - full);
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) acc[r][c] += av[r] * wv[c];
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const float sum = combine(acc[r][c]);
      y[r * ldy + c] = bias ? sum + bias[c] : sum;
    }
}

// Blocks of two rows by four columns, smaller ones at the edges.
template <int R>
[[gnu::always_inline]] inline void row_blocks(const float* a, std::int64_t lda, const float* w, std::int64_t ldw,
                                              std::int64_t cols, std::int64_t k, const float* bias, float* y,
                                              std::int64_t ldy) {
  std::int64_t j = 0;
  for (; j + 4 <= cols; j += 4) block<R, 4>(a, lda, w + j * ldw, ldw, k, bias ? bias + j : nullptr, y + j, ldy);
  for (; j < cols; ++j) block<R, 1>(a, lda, w + j * ldw, ldw, k, bias ? bias + j : nullptr, y + j, ldy);
}

[[gnu::always_inline]] inline void dots_loop(const float* a, std::int64_t lda, std::int64_t rows, const float* w,
                                             std::int64_t ldw, std::int64_t cols, std::int64_t k, const float* bias,
                                             float* y, std::int64_t ldy) {
  std::int64_t i = 0;
  for (; i + 2 <= rows; i += 2) row_blocks<2>(a + i * lda, lda, w, ldw, cols, k, bias, y + i * ldy, ldy);
  if (i < rows) row_blocks<1>(a + i * lda, lda, w, ldw, cols, k, bias, y + i * ldy, ldy);
}

// One copy per instruction set (target attributes, a table chosen once, as
// in vector_math.cpp); contraction into FMA is off for this file.
#define WINML_LANE_DOT_KERNELS(ATTR, ISA)                                                                    \
  ATTR void dots_##ISA(const float* a, std::int64_t lda, std::int64_t rows, const float* w, std::int64_t ldw, \
                       std::int64_t cols, std::int64_t k, const float* bias, float* y, std::int64_t ldy) {    \
    dots_loop(a, lda, rows, w, ldw, cols, k, bias, y, ldy);                                                  \
  }                                                                                                          \
  constexpr LaneDotKernels kernels_##ISA{#ISA, dots_##ISA};

WINML_LANE_DOT_KERNELS(__attribute__((target("avx2"))), avx2)
WINML_LANE_DOT_KERNELS(, generic)
#undef WINML_LANE_DOT_KERNELS

std::vector<const LaneDotKernels*> supported() {
  return runnable_variants<LaneDotKernels>(nullptr, &kernels_avx2, &kernels_generic);
}

// The runtime's instruction set (WINML_RUNTIME_ISA may lower it), as every kernel table.
const LaneDotKernels& active() {
  static const LaneDotKernels& k = *chosen_variant<LaneDotKernels>(nullptr, &kernels_avx2, &kernels_generic);
  return k;
}

}  // namespace

std::vector<const LaneDotKernels*> lane_dot_kernels_this_cpu_runs() { return supported(); }

void lane_dots(const float* a, std::int64_t lda, std::int64_t rows, const float* w, std::int64_t ldw,
               std::int64_t cols, std::int64_t k, const float* bias, float* y, std::int64_t ldy) {
  active().dots(a, lda, rows, w, ldw, cols, k, bias, y, ldy);
}

}  // namespace winml::runtime::kernels

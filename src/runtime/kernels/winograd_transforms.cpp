#include "runtime/kernels/winograd_transforms.h"

#include <algorithm>
#include <cstring>

#include "runtime/isa_variants.h"

namespace winml::runtime::kernels::winograd {

namespace {

// kLanes floats; the compiler maps it onto the registers of the instruction
// set it builds for (one AVX register, two SSE ones).
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

[[gnu::always_inline]] inline Lanes load(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The first `lanes` values of v (a constant-size copy when all: one store).
[[gnu::always_inline]] inline void store(float* p, Lanes v, std::int64_t lanes) {
  if (lanes == kLanes) {
    std::memcpy(p, &v, sizeof v);
    return;
  }
  for (std::int64_t l = 0; l < lanes; ++l) p[l] = v[l];
}

template <int M>
struct OutputTransform {
  [[gnu::always_inline]] void operator()(const Lanes* v, Lanes* o) const { Transforms<M>::output(v, o); }
};

// Values j = 0 .. M + 1 of the kLanes tiles whose columns start at `row` +
// l * M: phase[j][l] = row[l * M + j].
template <int M>
[[gnu::always_inline]] inline void tile_phases(const float* row, Lanes (&phase)[M + 2]) {
  // (__builtin_shufflevector: GCC 12 and clang alike.)
  if constexpr (M == 2) {
    const Lanes a0 = load(row), a1 = load(row + 8), b0 = load(row + 2), b1 = load(row + 10);
    phase[0] = __builtin_shufflevector(a0, a1, 0, 2, 4, 6, 8, 10, 12, 14);
    phase[1] = __builtin_shufflevector(a0, a1, 1, 3, 5, 7, 9, 11, 13, 15);
    phase[2] = __builtin_shufflevector(b0, b1, 0, 2, 4, 6, 8, 10, 12, 14);
    phase[3] = __builtin_shufflevector(b0, b1, 1, 3, 5, 7, 9, 11, 13, 15);
  } else {
    // Tiles 0-3 and 4-7 each give phases (0, 2) and (1, 3) in halves.
    const Lanes a0 = load(row), a1 = load(row + 8), a2 = load(row + 16), a3 = load(row + 24), next = load(row + 32);
    const Lanes first02 = __builtin_shufflevector(a0, a1, 0, 4, 8, 12, 2, 6, 10, 14);
    const Lanes first13 = __builtin_shufflevector(a0, a1, 1, 5, 9, 13, 3, 7, 11, 15);
    const Lanes second02 = __builtin_shufflevector(a2, a3, 0, 4, 8, 12, 2, 6, 10, 14);
    const Lanes second13 = __builtin_shufflevector(a2, a3, 1, 5, 9, 13, 3, 7, 11, 15);
    phase[0] = __builtin_shufflevector(first02, second02, 0, 1, 2, 3, 8, 9, 10, 11);
    phase[2] = __builtin_shufflevector(first02, second02, 4, 5, 6, 7, 12, 13, 14, 15);
    phase[1] = __builtin_shufflevector(first13, second13, 0, 1, 2, 3, 8, 9, 10, 11);
    phase[3] = __builtin_shufflevector(first13, second13, 4, 5, 6, 7, 12, 13, 14, 15);
    // Phases 4 and 5 are phases 0 and 1 of the next tile.
    phase[4] = __builtin_shufflevector(phase[0], next, 1, 2, 3, 4, 5, 6, 7, 8);
    phase[5] = __builtin_shufflevector(phase[1], next, 1, 2, 3, 4, 5, 6, 7, 9);
  }
}

// Columns first (down the rows, kLanes columns at a time), then rows (across
// kLanes tiles at a time): the order transform_2d takes.
template <int M>
[[gnu::always_inline]] inline void input_row_loop(const float* rows, std::int64_t width, std::int64_t tiles,
                                                  float* tmp, float* out, std::int64_t stride, std::int64_t writable) {
  constexpr int A = M + 2;
  for (std::int64_t x = 0; x < width; x += kLanes) {
    Lanes d[A], o[A];
    for (int i = 0; i < A; ++i) d[i] = load(rows + i * width + x);
    Transforms<M>::input(d, o);
    for (int i = 0; i < A; ++i) store(tmp + i * width + x, o[i], kLanes);
  }
  for (int i = 0; i < A; ++i)
    for (std::int64_t t = 0; t < tiles; t += kLanes) {
      Lanes phase[A], o[A];
      tile_phases<M>(tmp + i * width + t * M, phase);
      Transforms<M>::input(phase, o);
      const std::int64_t lanes = std::min<std::int64_t>(kLanes, std::max(tiles, writable) - t);
      for (int j = 0; j < A; ++j) store(out + (i * A + j) * stride + t, o[j], lanes);
    }
}

typedef std::int32_t LaneMask __attribute__((vector_size(kLanes * sizeof(std::int32_t))));

// x < 0 ? 0 : x in every lane (NaN and -0 kept): all bits of a negative lane cleared.
[[gnu::always_inline]] inline Lanes relu_lanes(Lanes x) {
  const LaneMask negative = x < Lanes{};
  return reinterpret_cast<Lanes>(reinterpret_cast<LaneMask>(x) & ~negative);
}

template <int M>
[[gnu::always_inline]] inline void output_lanes_loop(const float* p, std::int64_t stride, const float* bias, bool relu,
                                                     float* out) {
  constexpr int A = M + 2;
  Lanes v[A][A], o[M][M];
  for (int i = 0; i < A; ++i)
    for (int j = 0; j < A; ++j) v[i][j] = load(p + (i * A + j) * stride);
  transform_2d(v, o, OutputTransform<M>{});
  const Lanes b = bias ? load(bias) : Lanes{};
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) {
      const Lanes y = o[i][j] + b;
      store(out + (i * M + j) * kLanes, relu ? relu_lanes(y) : y, kLanes);
    }
}

// One copy per instruction set (explicit target attributes and a table
// chosen once, as in vector_math.cpp). Contraction into FMA is off for this
// file, so every copy computes the scalar transforms' bits.
#define WINML_WINOGRAD_KERNELS(ATTR, ISA)                                                                    \
  ATTR void input_row_##ISA(int m, const float* rows, std::int64_t width, std::int64_t tiles, float* tmp,  \
                            float* out, std::int64_t stride, std::int64_t writable) {                       \
    if (m == 4) input_row_loop<4>(rows, width, tiles, tmp, out, stride, writable);                         \
    else input_row_loop<2>(rows, width, tiles, tmp, out, stride, writable);                                 \
  }                                                                                                         \
  ATTR void output_lanes_##ISA(int m, const float* p, std::int64_t stride, const float* bias, bool relu,   \
                              float* out) {                                                                 \
    if (m == 4) output_lanes_loop<4>(p, stride, bias, relu, out);                                           \
    else output_lanes_loop<2>(p, stride, bias, relu, out);                                                  \
  }                                                                                                         \
  constexpr TransformKernels kernels_##ISA{#ISA, input_row_##ISA, output_lanes_##ISA};

WINML_WINOGRAD_KERNELS(__attribute__((target("avx2"))), avx2)
WINML_WINOGRAD_KERNELS(, generic)
#undef WINML_WINOGRAD_KERNELS

std::vector<const TransformKernels*> supported() {
  return runnable_variants<TransformKernels>(nullptr, &kernels_avx2, &kernels_generic);
}

const TransformKernels& active() {
  static const TransformKernels& k = *chosen_variant<TransformKernels>(nullptr, &kernels_avx2, &kernels_generic);
  return k;
}

}  // namespace

std::vector<const TransformKernels*> transform_kernels_this_cpu_runs() { return supported(); }

void input_row(int m, const float* rows, std::int64_t width, std::int64_t tiles, float* tmp, float* out,
               std::int64_t stride, std::int64_t writable) {
  active().input_row(m, rows, width, tiles, tmp, out, stride, writable);
}

void output_lanes(int m, const float* p, std::int64_t stride, const float* bias, bool relu, float* out) {
  active().output_lanes(m, p, stride, bias, relu, out);
}

}  // namespace winml::runtime::kernels::winograd

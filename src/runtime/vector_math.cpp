#include "runtime/vector_math.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/isa_variants.h"

namespace winml::runtime::vmath {

namespace {

// e^x for one lane: x = n ln2 + r with |r| <= ln2/2, e^r by its Taylor
// polynomial to r^7, 2^n assembled in the exponent bits.
[[gnu::always_inline]] inline float exp1(float x) {
  const float hi = 88.72283f, lo = -87.33654f;  // e^x overflows / leaves the normal range
  // NaN falls to lo (every comparison is false): the conversion to int below
  // must never see NaN, which is undefined; the result is replaced by x anyway.
  float xc = x > hi ? hi : (x >= lo ? x : lo);
  float t = xc * 1.44269504088896341f + 12582912.0f;  // round to nearest: 1.5 * 2^23
  float n = t - 12582912.0f;
  float r = xc - n * 0.693359375f;  // ln2 split so n * hi is exact
  r = r - n * -2.12194440e-4f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // n can reach 128 at the top of the range: scale in two steps there.
  float extra = n > 127.0f ? 2.0f : 1.0f;
  n = n > 127.0f ? 127.0f : n;
  auto bits = static_cast<std::int32_t>(n) + 127;
  float scale = std::bit_cast<float>(bits << 23);
  float y = p * scale * extra;
  y = x > hi ? std::bit_cast<float>(0x7f800000) : y;
  y = x < lo ? 0.0f : y;
  return x != x ? x : y;
}

// erf for one lane: a Taylor series for |x| < 0.5; above,
// 1 - e^(-x^2) R(u), u = 1 / (1 + x/2), with R fitted to erfc(x) e^(x^2) on
// [0.5, 4] (relative error 2e-9); 1 beyond 4.
[[gnu::always_inline]] inline float erf1(float x) {
  float a = x < 0 ? -x : x;
  float a2 = a * a;
  float s = -1.0f / 75600;
  s = s * a2 + 1.0f / 9360;
  s = s * a2 - 1.0f / 1320;
  s = s * a2 + 1.0f / 216;
  s = s * a2 - 1.0f / 42;
  s = s * a2 + 1.0f / 10;
  s = s * a2 - 1.0f / 3;
  s = s * a2 + 1.0f;
  float small = 1.12837916709551257f * a * s;  // 2/sqrt(pi)
  float u = 1.0f / (1.0f + 0.5f * a);
  float r = -0.021092606708407402f;
  r = r * u + 0.20736001431941986f;
  r = r * u - 0.6301743388175964f;
  r = r * u + 0.7255899310112f;
  r = r * u - 0.2060617059469223f;
  r = r * u + 0.38872605562210083f;
  r = r * u + 0.24958567321300507f;
  r = r * u + 0.2863214612007141f;
  r = r * u - 0.0002391891903243959f;
  float big = 1.0f - exp1(-a2) * r;
  float y = a < 0.5f ? small : big;
  y = a > 4.0f ? 1.0f : y;
  y = x < 0 ? -y : y;
  return x != x ? x : y;
}

// The loops, written once; each instruction set's copy below inlines them
// and vectorizes them for its own registers.
[[gnu::always_inline]] inline void exp_loop(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = exp1(x[i]);
}

[[gnu::always_inline]] inline void erf_loop(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = erf1(x[i]);
}

[[gnu::always_inline]] inline void gelu_loop(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + erf1(v * 0.70710678118654752f));
  }
}

[[gnu::always_inline]] inline void sigmoid_loop(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    // e^-|x| never overflows; mirror for negative x.
    float v = x[i];
    float e = exp1(v < 0 ? v : -v);
    float p = 1.0f / (1.0f + e);
    y[i] = v < 0 ? e * p : p;
  }
}

[[gnu::always_inline]] inline float max_loop(const float* x, std::int64_t n) {
  const float lowest = -std::numeric_limits<float>::infinity();
  float lane[16];
  for (int k = 0; k < 16; ++k) lane[k] = lowest;
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int k = 0; k < 16; ++k) lane[k] = x[i + k] > lane[k] ? x[i + k] : lane[k];
  for (int k = 0; i < n; ++i, ++k) lane[k] = x[i] > lane[k] ? x[i] : lane[k];
  float m = lowest;
  for (int k = 0; k < 16; ++k) m = lane[k] > m ? lane[k] : m;
  return m;
}

// Smallest and largest of x[0..n) in one pass, NaNs skipped, over 16 lanes
// (each lane keeps the first of equal values, so every instruction set picks
// the same zero): lo > hi when there is no number. In vector types: GCC does
// not vectorize two reductions in one loop by itself.
typedef float F8 __attribute__((vector_size(32)));

[[gnu::always_inline]] inline void min_max_loop(const float* x, std::int64_t n, float* lo, float* hi) {
  const float inf = std::numeric_limits<float>::infinity();
  F8 mn[2], mx[2];
  for (int h = 0; h < 2; ++h)
    for (int k = 0; k < 8; ++k) mn[h][k] = inf, mx[h][k] = -inf;
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int h = 0; h < 2; ++h) {
      F8 v;
      std::memcpy(&v, x + i + 8 * h, sizeof v);
      // (x86's min/max instructions: the second operand where unordered, so
      // NaNs are skipped; one instruction instead of a compare and a blend.)
      mn[h] = v < mn[h] ? v : mn[h];
      mx[h] = v > mx[h] ? v : mx[h];
    }
  float a[16], b[16];
  std::memcpy(a, mn, sizeof a);
  std::memcpy(b, mx, sizeof b);
  for (int k = 0; i < n; ++i, ++k) {
    a[k] = x[i] < a[k] ? x[i] : a[k];
    b[k] = x[i] > b[k] ? x[i] : b[k];
  }
  float l = inf, r = -inf;
  for (int k = 0; k < 16; ++k) {
    l = a[k] < l ? a[k] : l;
    r = b[k] > r ? b[k] : r;
  }
  *lo = l;
  *hi = r;
}

[[gnu::always_inline]] inline double sum_loop(const float* x, std::int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] += static_cast<double>(x[i + k]);
  for (int k = 0; i < n; ++i, ++k) acc[k] += static_cast<double>(x[i]);
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

[[gnu::always_inline]] inline double sum_squared_deviations_loop(const float* x, std::int64_t n, double center) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) {
      double d = static_cast<double>(x[i + k]) - center;
      acc[k] += d * d;
    }
  for (int k = 0; i < n; ++i, ++k) {
    double d = static_cast<double>(x[i]) - center;
    acc[k] += d * d;
  }
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}


// Types up to 16 bits clamp and replace NaN as floats (their bounds are
// exact): selects the compiler vectorizes, the rounding one instruction per
// 8 values on AVX2. int32's upper bound rounds up to 2^31 as a float, which
// must not reach the conversion: it branches.
template <typename Q>
[[gnu::always_inline]] inline void quantize_loop(const float* x, std::int64_t n, float scale, float zero, Q lo, Q hi,
                                                 Q nan, Q* y) {
  const float low = static_cast<float>(lo), high = static_cast<float>(hi), not_a_number = static_cast<float>(nan);
  for (std::int64_t i = 0; i < n; ++i) {
    const float r = std::nearbyint(x[i] / scale) + zero;  // ties to even
    if constexpr (sizeof(Q) < 4) {
      const float v = r == r ? std::min(std::max(r, low), high) : not_a_number;
      y[i] = static_cast<Q>(v);
    } else {
      y[i] = r != r ? nan : !(r > low) ? lo : !(r < high) ? hi : static_cast<Q>(r);
    }
  }
}

// One copy of every kernel per instruction set. Explicit target attributes
// and a table chosen once, not target_clones: clang 14 ignores target_clones
// on a function declared earlier without it (as in vector_math.h) and emits
// the first clone, AVX-512, as the only one.
#define WINML_VMATH_KERNELS(ATTR, ISA)                                                                      \
  ATTR void exp_##ISA(const float* x, float* y, std::int64_t n) { exp_loop(x, y, n); }                      \
  ATTR void erf_##ISA(const float* x, float* y, std::int64_t n) { erf_loop(x, y, n); }                      \
  ATTR void gelu_##ISA(const float* x, float* y, std::int64_t n) { gelu_loop(x, y, n); }                    \
  ATTR void sigmoid_##ISA(const float* x, float* y, std::int64_t n) { sigmoid_loop(x, y, n); }              \
  ATTR float max_##ISA(const float* x, std::int64_t n) { return max_loop(x, n); }                           \
  ATTR void min_max_##ISA(const float* x, std::int64_t n, float* lo, float* hi) { min_max_loop(x, n, lo, hi); } \
  ATTR double sum_##ISA(const float* x, std::int64_t n) { return sum_loop(x, n); }                          \
  ATTR double ssd_##ISA(const float* x, std::int64_t n, double c) { return sum_squared_deviations_loop(x, n, c); } \
  ATTR void rows_##ISA(const float* x, std::int64_t rows, std::int64_t inner, double* sums, float* lo, float* hi) { \
    for (std::int64_t r = 0; r < rows; ++r) {                                                               \
      sums[r] = sum_loop(x + r * inner, inner);                                                             \
      if (lo) min_max_loop(x + r * inner, inner, lo + r, hi + r);                                           \
    }                                                                                                       \
  }                                                                                                         \
  template <typename Q>                                                                                     \
  ATTR void quantize_##ISA(const float* x, std::int64_t n, float scale, float zero, Q lo, Q hi, Q nan, Q* y) { \
    quantize_loop(x, n, scale, zero, lo, hi, nan, y);                                                       \
  }                                                                                                         \
  constexpr Kernels kernels_##ISA{#ISA,                                                                     \
                                  exp_##ISA,                                                                \
                                  erf_##ISA,                                                                \
                                  gelu_##ISA,                                                               \
                                  sigmoid_##ISA,                                                            \
                                  max_##ISA,                                                                \
                                  min_max_##ISA,                                                            \
                                  sum_##ISA,                                                                \
                                  ssd_##ISA,                                                                \
                                  rows_##ISA,                                                               \
                                  quantize_##ISA<std::int8_t>,                                              \
                                  quantize_##ISA<std::uint8_t>,                                             \
                                  quantize_##ISA<std::int16_t>,                                             \
                                  quantize_##ISA<std::uint16_t>,                                            \
                                  quantize_##ISA<std::int32_t>};

WINML_VMATH_KERNELS(__attribute__((target("avx512f"))), avx512)
WINML_VMATH_KERNELS(__attribute__((target("avx2"))), avx2)
WINML_VMATH_KERNELS(, generic)
#undef WINML_VMATH_KERNELS

std::vector<const Kernels*> supported() { return runnable_variants(&kernels_avx512, &kernels_avx2, &kernels_generic); }

const Kernels& active() {
  static const Kernels& k = *chosen_variant(&kernels_avx512, &kernels_avx2, &kernels_generic);
  return k;
}

}  // namespace

std::vector<const Kernels*> kernels_this_cpu_runs() { return supported(); }

void exp(const float* x, float* y, std::int64_t n) { active().exp(x, y, n); }
void erf(const float* x, float* y, std::int64_t n) { active().erf(x, y, n); }
void gelu(const float* x, float* y, std::int64_t n) { active().gelu(x, y, n); }
void sigmoid(const float* x, float* y, std::int64_t n) { active().sigmoid(x, y, n); }
float max(const float* x, std::int64_t n) { return active().max(x, n); }
void min_max(const float* x, std::int64_t n, float* lo, float* hi) { active().min_max(x, n, lo, hi); }
double sum(const float* x, std::int64_t n) { return active().sum(x, n); }
double sum_squared_deviations(const float* x, std::int64_t n, double center) {
  return active().sum_squared_deviations(x, n, center);
}
void row_sums_and_ranges(const float* x, std::int64_t rows, std::int64_t inner, double* sums, float* lo, float* hi) {
  active().row_sums_and_ranges(x, rows, inner, sums, lo, hi);
}
namespace {

// The active table's entry for Q.
template <typename Q>
Kernels::Quantize<Q> quantize_entry(const Kernels& k) {
  if constexpr (std::is_same_v<Q, std::int8_t>) return k.quantize_i8;
  else if constexpr (std::is_same_v<Q, std::uint8_t>) return k.quantize_u8;
  else if constexpr (std::is_same_v<Q, std::int16_t>) return k.quantize_i16;
  else if constexpr (std::is_same_v<Q, std::uint16_t>) return k.quantize_u16;
  else return k.quantize_i32;
}

}  // namespace

template <typename Q>
void quantize(const float* x, std::int64_t n, float scale, float zero, Q lo, Q hi, Q nan, Q* y) {
  quantize_entry<Q>(active())(x, n, scale, zero, lo, hi, nan, y);
}
template void quantize(const float*, std::int64_t, float, float, std::int8_t, std::int8_t, std::int8_t, std::int8_t*);
template void quantize(const float*, std::int64_t, float, float, std::uint8_t, std::uint8_t, std::uint8_t,
                       std::uint8_t*);
template void quantize(const float*, std::int64_t, float, float, std::int16_t, std::int16_t, std::int16_t,
                       std::int16_t*);
template void quantize(const float*, std::int64_t, float, float, std::uint16_t, std::uint16_t, std::uint16_t,
                       std::uint16_t*);
template void quantize(const float*, std::int64_t, float, float, std::int32_t, std::int32_t, std::int32_t,
                       std::int32_t*);

}  // namespace winml::runtime::vmath

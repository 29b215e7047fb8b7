#include "quant/calibration/random.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "runtime/isa_variants.h"

namespace winml::quant {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

std::uint64_t Rng::next() {
  std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

void Rng::polar_point(double& u, double& v, double& s) {
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
}

// Tries draw their two values in polar_point's order, and each try keeps at
// most one point: asking for the points still missing never draws past the
// last one a loop of polar_point() calls would (the same points, the same
// state after). Without its branch, a rejected try costs no misprediction.
void Rng::polar_points(double* u, double* v, double* s, std::size_t count) {
  constexpr std::size_t kTries = 256;
  double du[kTries], dv[kTries];
  std::size_t have = 0;
  while (have < count) {
    const std::size_t tries = std::min(kTries, count - have);
    for (std::size_t t = 0; t < tries; ++t) du[t] = uniform(), dv[t] = uniform();
    for (std::size_t t = 0; t < tries; ++t) {
      const double a = 2.0 * du[t] - 1.0, b = 2.0 * dv[t] - 1.0, r = a * a + b * b;
      u[have] = a, v[have] = b, s[have] = r;  // (kept only if counted)
      have += r < 1.0 && r != 0.0;
    }
  }
}

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u, v, s;
  polar_point(u, v, s);
  double f = std::sqrt(-2.0 * portable_log(s) / s);  // sqrt is exactly rounded by IEEE 754
  spare_ = v * f;
  has_spare_ = true;
  return u * f;
}

namespace {

// ln(m * 2^e) for m in [0.5, 1) with only +, -, *, /: ln(m) = 2 atanh(z),
// z = (m - 1) / (m + 1), |z| < 0.172 after m moves to [sqrt(1/2), sqrt(2)).
// The terms shrink and share the sum's sign, and from the 11th on none
// changes the sum: 12 terms give the same bits as any longer series. No
// branch: V is double or a vector of doubles, each lane running the same
// operations in the same order (the same bits as one at a time). (By
// reference: a vector passed by value would change the ABI between the
// copies compiled for different instruction sets.)
template <typename V>
inline void log_of_parts(const V& mantissa, const V& exponent, V& out) {
  const auto low = mantissa < 0.70710678118654752;
  const V m = low ? mantissa * 2.0 : mantissa;
  const V e = low ? exponent - 1.0 : exponent;
  const V z = (m - 1.0) / (m + 1.0);
  const V z2 = z * z;
  V term = z, sum = z - z;  // (zero, as V)
  for (int k = 0; k < 12; ++k) {
    sum += term / static_cast<double>(2 * k + 1);
    term *= z2;
  }
  constexpr double kLn2 = 0.69314718055994530942;
  out = 2.0 * sum + e * kLn2;
}

// f = sqrt(-2 ln(s) / s) for each s, as normal() computes it, with frexp
// taken from the bits: every s here is a normal number (u and v are
// multiples of 2^-52, so s >= 2^-104). Four values per vector, each running
// normal()'s operations in its order (the same bits); also compiled for
// AVX2, whose four-wide divisions take half the time (AVX2 without FMA, so
// every operation rounds as the baseline's does; the copy follows the
// runtime's instruction set, WINML_RUNTIME_ISA included).
typedef double D4 __attribute__((vector_size(32)));
typedef std::int64_t I4 __attribute__((vector_size(32)));

[[gnu::always_inline]] inline void polar_factors_loop(const double* s, double* f, std::size_t n) {
  constexpr std::int64_t kExponent = std::int64_t{0x7ff} << 52;
  constexpr double kTwo52 = 0x1p52;  // (its bits or'ed with a small integer give 2^52 plus it)
  constexpr std::size_t kVectors = 4;  // independent chains of divisions in flight
  for (std::size_t i0 = 0; i0 < n; i0 += 4 * kVectors) {
    const std::size_t lanes = std::min<std::size_t>(4 * kVectors, n - i0);
    D4 sv[kVectors], logs[kVectors];
    for (std::size_t g = 0; g < kVectors; ++g) sv[g] = D4{0.5, 0.5, 0.5, 0.5};
    for (std::size_t i = 0; i < lanes; ++i) sv[i / 4][i % 4] = s[i0 + i];
    for (std::size_t g = 0; g < kVectors; ++g) {
      // (memcpy, not bit_cast: no vector passes through a call, whose ABI
      // would differ between the two copies of this function.)
      I4 bits;
      std::memcpy(&bits, &sv[g], sizeof bits);
      const I4 exponent = ((bits & kExponent) >> 52) | std::bit_cast<std::int64_t>(kTwo52);
      const I4 mantissa = (bits & ~kExponent) | (std::int64_t{1022} << 52);
      D4 e, m;
      std::memcpy(&e, &exponent, sizeof exponent);
      std::memcpy(&m, &mantissa, sizeof mantissa);  // in [0.5, 1)
      e = (e - kTwo52) - 1022.0;
      log_of_parts(m, e, logs[g]);
    }
    for (std::size_t g = 0; g < kVectors; ++g) {
      const D4 q = -2.0 * logs[g] / sv[g];
      for (std::size_t i = 0; i < 4 && 4 * g + i < lanes; ++i) f[i0 + 4 * g + i] = std::sqrt(q[i]);
    }
  }
}

__attribute__((target("avx2"))) void polar_factors_avx2(const double* s, double* f, std::size_t n) {
  polar_factors_loop(s, f, n);
}
void polar_factors_generic(const double* s, double* f, std::size_t n) { polar_factors_loop(s, f, n); }

// The copy for the runtime's instruction set (runtime/isa_variants.h).
void polar_factors(const double* s, double* f, std::size_t n) {
  using Fn = void (*)(const double*, double*, std::size_t);
  static constexpr Fn kAvx2 = polar_factors_avx2, kGeneric = polar_factors_generic;
  static const Fn fn = *runtime::chosen_variant<Fn>(nullptr, &kAvx2, &kGeneric);
  fn(s, f, n);
}

}  // namespace

void Rng::normals(double* out, std::size_t n) {
  std::size_t i = 0;
  if (i < n && has_spare_) {
    out[i++] = spare_;
    has_spare_ = false;
  }
  constexpr std::size_t kBatch = 256;
  double u[kBatch], v[kBatch], s[kBatch], f[kBatch];
  while (i < n) {
    const std::size_t pairs = std::min(kBatch, (n - i + 1) / 2);
    polar_points(u, v, s, pairs);
    polar_factors(s, f, pairs);
    for (std::size_t p = 0; p < pairs; ++p) {
      out[i++] = u[p] * f[p];
      if (i < n) {
        out[i++] = v[p] * f[p];
      } else {
        spare_ = v[p] * f[p];
        has_spare_ = true;
      }
    }
  }
}

double portable_log(double x) {
  int e = 0;
  const double m = std::frexp(x, &e);  // exact: x = m * 2^e, m in [0.5, 1)
  double result;
  log_of_parts(m, static_cast<double>(e), result);
  return result;
}

}  // namespace winml::quant

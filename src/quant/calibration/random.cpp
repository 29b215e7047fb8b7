#include "quant/calibration/random.h"

#include <algorithm>
#include <bit>
#include <cmath>

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
// branch, so a loop over many values compiles to vector code. L values at
// a time: each runs its own operations in its own order (the same bits as
// one at a time), and their divisions overlap instead of waiting on one
// another's.
template <std::size_t L>
inline void logs_of_parts(const double* m_in, const double* e_in, double* out) {
  double e[L], z2[L], term[L], sum[L];
  for (std::size_t i = 0; i < L; ++i) {
    const bool low = m_in[i] < 0.70710678118654752;
    const double m = low ? m_in[i] * 2.0 : m_in[i];
    e[i] = low ? e_in[i] - 1.0 : e_in[i];
    const double z = (m - 1.0) / (m + 1.0);
    z2[i] = z * z, term[i] = z, sum[i] = 0.0;
  }
  for (int k = 0; k < 12; ++k) {
    const double divisor = static_cast<double>(2 * k + 1);
    for (std::size_t i = 0; i < L; ++i) {
      sum[i] += term[i] / divisor;
      term[i] *= z2[i];
    }
  }
  constexpr double kLn2 = 0.69314718055994530942;
  for (std::size_t i = 0; i < L; ++i) out[i] = 2.0 * sum[i] + e[i] * kLn2;
}

inline double log_of_parts(double m, double e) {
  double result;
  logs_of_parts<1>(&m, &e, &result);
  return result;
}

// f = sqrt(-2 ln(s) / s) for each s, as normal() computes it, with frexp
// taken from the bits: every s here is a normal number (u and v are
// multiples of 2^-52, so s >= 2^-104). Also compiled for AVX2, whose
// four-wide divisions take half the time (AVX2 without FMA, so every
// operation rounds as the baseline's does: the same bits).
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
void polar_factors(const double* s, double* f, std::size_t n) {
  constexpr std::uint64_t kExponent = std::uint64_t{0x7ff} << 52;
  constexpr std::size_t kLanes = 16;
  for (std::size_t i0 = 0; i0 < n; i0 += kLanes) {
    const std::size_t lanes = std::min(kLanes, n - i0);
    double m[kLanes] = {}, e[kLanes] = {}, logs[kLanes];
    for (std::size_t i = 0; i < kLanes; ++i) {
      const auto bits = std::bit_cast<std::uint64_t>(i < lanes ? s[i0 + i] : 0.5);
      e[i] = static_cast<double>(static_cast<std::int64_t>((bits & kExponent) >> 52) - 1022);
      m[i] = std::bit_cast<double>((bits & ~kExponent) | (std::uint64_t{1022} << 52));  // in [0.5, 1)
    }
    logs_of_parts<kLanes>(m, e, logs);
    for (std::size_t i = 0; i < lanes; ++i) f[i0 + i] = std::sqrt(-2.0 * logs[i] / s[i0 + i]);
  }
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
    for (std::size_t p = 0; p < pairs; ++p) polar_point(u[p], v[p], s[p]);
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
  return log_of_parts(m, static_cast<double>(e));
}

}  // namespace winml::quant

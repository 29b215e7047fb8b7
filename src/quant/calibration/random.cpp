#include "quant/calibration/random.h"

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

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  double f = std::sqrt(-2.0 * portable_log(s) / s);  // sqrt is exactly rounded by IEEE 754
  spare_ = v * f;
  has_spare_ = true;
  return u * f;
}

double portable_log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // exact: x = m * 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752) {
    m *= 2.0;
    --e;
  }
  // ln(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172: the series converges fast.
  double s = (m - 1.0) / (m + 1.0);
  // The terms shrink and share the sum's sign: once one leaves the sum
  // unchanged, so would every later one, and the sum is the 30-term one.
  double s2 = s * s, term = s, sum = 0.0;
  for (int k = 0; k < 30; ++k) {
    const double next = sum + term / static_cast<double>(2 * k + 1);
    if (next == sum) break;
    sum = next;
    term *= s2;
  }
  constexpr double kLn2 = 0.69314718055994530942;
  return 2.0 * sum + static_cast<double>(e) * kLn2;
}

}  // namespace winml::quant

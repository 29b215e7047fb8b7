// A seeded random source whose values depend only on the seed: xoshiro256**
// seeded through splitmix64, uniform doubles from the top 53 bits, normals by
// Marsaglia's polar method with a logarithm built from exact IEEE operations
// (so no libm version can change a generated sample, and with it the model).
#pragma once

#include <cstddef>
#include <cstdint>

namespace winml::quant {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  double uniform();  // [0, 1)
  double normal();   // mean 0, stddev 1
  // n values, exactly those (and the state after) of n calls of normal(),
  // with the logarithms of a batch computed together as vector code.
  void normals(double* out, std::size_t n);

 private:
  // The polar method's next accepted point: u, v in (-1, 1), s = u² + v² in (0, 1).
  void polar_point(double& u, double& v, double& s);
  // The next `count` accepted points, as that many polar_point() calls.
  void polar_points(double* u, double* v, double* s, std::size_t count);

  std::uint64_t s_[4];
  bool has_spare_ = false;
  double spare_ = 0;
};

// Natural logarithm of x > 0 using only +, -, *, / and exact scaling.
double portable_log(double x);

}  // namespace winml::quant

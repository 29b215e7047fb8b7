// Float math for hot kernels, written so the compiler vectorizes it (no
// calls, no branches), and compiled for several instruction sets with the
// best one picked at run time. Contraction into FMA is off for this code, so
// every variant computes the same bits. Accuracy: within ~2 ulp of the
// correctly rounded result (tests/runtime/vector_math_test.cpp).
#pragma once

#include <cstdint>

namespace winml::runtime::vmath {

// y[i] = e^x[i] (0 below the float range, +inf above, NaN stays NaN).
void exp(const float* x, float* y, std::int64_t n);
// y[i] = erf(x[i]).
void erf(const float* x, float* y, std::int64_t n);
// y[i] = x[i] * (1 + erf(x[i] / sqrt(2))) / 2.
void gelu(const float* x, float* y, std::int64_t n);
// y[i] = 1 / (1 + e^-x[i]).
void sigmoid(const float* x, float* y, std::int64_t n);

// Largest of x[0..n) (NaNs are skipped; -inf when n is 0), over 16 lanes.
float max(const float* x, std::int64_t n);

// Sum of x[0..n) in double, over 8 interleaved partial sums added in a fixed
// order: fast, and independent of pointer alignment and thread count.
double sum(const float* x, std::int64_t n);
// Sum of (x[i] - center)^2 in double, the same way.
double sum_squared_deviations(const float* x, std::int64_t n, double center);

}  // namespace winml::runtime::vmath

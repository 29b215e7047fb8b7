// Float math for hot kernels, written so the compiler vectorizes it (no
// calls, no branches), and compiled for several instruction sets with the
// best one picked at run time. Contraction into FMA is off for this code, so
// every variant computes the same bits. Accuracy: within ~2 ulp of the
// correctly rounded result (tests/runtime/vector_math_test.cpp).
#pragma once

#include <cstdint>
#include <vector>

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
// Smallest and largest of x[0..n) in one pass (NaNs are skipped): *lo > *hi
// when there is no number (n is 0 or all are NaN).
void min_max(const float* x, std::int64_t n, float* lo, float* hi);

// Sum of x[0..n) in double, over 8 interleaved partial sums added in a fixed
// order: fast, and independent of pointer alignment and thread count.
double sum(const float* x, std::int64_t n);
// Sum of (x[i] - center)^2 in double, the same way.
double sum_squared_deviations(const float* x, std::int64_t n, double center);

// For each of `rows` rows of `inner` values (row r at x + r * inner):
// sums[r] = sum(row), and when `lo` is given, min_max(row, &lo[r], &hi[r]),
// the same bits as those calls, without a call per row (calibration's
// channel means take them of every row of ResNet-50's 7x7 maps, 49 values).
void row_sums_and_ranges(const float* x, std::int64_t rows, std::int64_t inner, double* sums, float* lo, float* hi);

// y[i] = round_half_even(x[i] / scale) + zero, saturated to [lo, hi], and
// `nan` where that is NaN: quantization to integers, as QuantizeLinear (the
// type's limits, NaN to the lowest) and weight quantization (a narrower
// range, NaN to the zero point) define it.
// Q: int8, uint8, int16, uint16 or int32 (instantiated in vector_math.cpp).
template <typename Q>
void quantize(const float* x, std::int64_t n, float scale, float zero, Q lo, Q hi, Q nan, Q* y);

// The functions above for one instruction set. They give the same bits on
// every instruction set (the tests compare them).
struct Kernels {
  const char* isa;  // "avx512", "avx2" or "generic"
  void (*exp)(const float*, float*, std::int64_t);
  void (*erf)(const float*, float*, std::int64_t);
  void (*gelu)(const float*, float*, std::int64_t);
  void (*sigmoid)(const float*, float*, std::int64_t);
  float (*max)(const float*, std::int64_t);
  void (*min_max)(const float*, std::int64_t, float*, float*);
  double (*sum)(const float*, std::int64_t);
  double (*sum_squared_deviations)(const float*, std::int64_t, double);
  void (*row_sums_and_ranges)(const float*, std::int64_t, std::int64_t, double*, float*, float*);
  template <typename Q>
  using Quantize = void (*)(const float*, std::int64_t, float, float, Q, Q, Q, Q*);
  Quantize<std::int8_t> quantize_i8;
  Quantize<std::uint8_t> quantize_u8;
  Quantize<std::int16_t> quantize_i16;
  Quantize<std::uint16_t> quantize_u16;
  Quantize<std::int32_t> quantize_i32;
};
// Every variant this CPU can run, widest first: the first is the one used.
std::vector<const Kernels*> kernels_this_cpu_runs();

}  // namespace winml::runtime::vmath

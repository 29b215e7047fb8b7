// Dot products whose bits do not depend on the instruction set: the products
// of block-quantized weights (MatMulNBits) with activations.
//
// Each dot product of length k keeps eight partial sums; lane l adds the
// products of the positions p = l (mod 8) in order of p, each product
// rounded before it is added (no fused multiply-add), and the lanes are
// combined as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)). Every copy
// of the loops (generic x86-64, AVX2) computes exactly that, so the results
// are the same on every machine, for any tiling and thread count.
#pragma once

#include <cstdint>
#include <vector>

namespace winml::runtime::kernels {

// y[i * ldy + j] = dot(a + i * lda, w + j * ldw, k) (+ bias[j] after, when
// given) for i < rows, j < cols. The rows of `w` are the columns of the
// weights, each k contiguous floats.
void lane_dots(const float* a, std::int64_t lda, std::int64_t rows, const float* w, std::int64_t ldw,
               std::int64_t cols, std::int64_t k, const float* bias, float* y, std::int64_t ldy);

// The copies this CPU runs, widest first (tests compare them).
struct LaneDotKernels {
  const char* name;
  void (*dots)(const float* a, std::int64_t lda, std::int64_t rows, const float* w, std::int64_t ldw,
               std::int64_t cols, std::int64_t k, const float* bias, float* y, std::int64_t ldy);
};
std::vector<const LaneDotKernels*> lane_dot_kernels_this_cpu_runs();

}  // namespace winml::runtime::kernels

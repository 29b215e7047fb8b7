// Permuting dimensions, shared by Transpose, DepthToSpace/SpaceToDepth and Einsum.
#pragma once

#include <vector>

#include "runtime/tensor.h"

namespace winml::runtime {
class ThreadPool;
}

namespace winml::runtime::kernels {

// out = x with dims permuted: out.dim(i) = x.dim(perm[i]). `out` is allocated by the caller.
void transpose_into(const Tensor& x, const std::vector<int>& perm, Tensor& out, ThreadPool& pool);
Shape permuted_shape(const Shape& s, const std::vector<int>& perm);

}  // namespace winml::runtime::kernels

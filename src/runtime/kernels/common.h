// Small helpers shared by kernels.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "base/error.h"
#include "runtime/dispatch.h"
#include "runtime/errors.h"
#include "runtime/kernel.h"
#include "runtime/tensor.h"
#include "runtime/thread_pool.h"

namespace winml::runtime::kernels {

// `axis` in [-rank, rank) as [0, rank); InputError otherwise.
int normalize_axis(std::int64_t axis, int rank);
// The values of an int64 or int32 tensor (shapes, axes, indices).
std::vector<std::int64_t> to_int64s(const Tensor& t);
// A scalar (or one-element tensor) of any numeric type, as double.
double scalar_value(const Tensor& t);
// Numpy-style broadcast of two shapes; InputError when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b);
std::vector<std::int64_t> strides_of(const Shape& s);
// Product of dims [from, to).
std::int64_t dims_product(const Shape& s, int from, int to);

// Runs fn(begin, end) over [0, n) in tiles of `grain` items. Tile boundaries
// depend only on n and grain, never on the thread count.
void parallel_ranges(ThreadPool& pool, std::int64_t n, std::int64_t grain,
                     const std::function<void(std::int64_t, std::int64_t)>& fn);

// Elements per tile for cheap element-wise work.
inline constexpr std::int64_t kElementwiseGrain = 32768;

// Relu's value of x, NaN and -0 kept: what a folded Relu (KernelContext::relu_output) writes.
inline float relu(float x) { return x < 0.0f ? 0.0f : x; }

// The unsigned type of at least 32 bits integer T computes in when it wraps
// around (as ONNX Runtime's integers do): overflow there is defined, where
// T's own signed overflow would be undefined behaviour; the result is
// narrowed back to T.
template <typename T>
using Wrapping = std::conditional_t<(sizeof(T) > 4), std::uint64_t, std::uint32_t>;

}  // namespace winml::runtime::kernels

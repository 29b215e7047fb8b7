// Summary statistics of a tensor (for `winml-make run` and diagnostics).
#pragma once

#include <cstdint>

#include "runtime/tensor.h"

namespace winml::runtime {

struct TensorStats {
  double min = 0, max = 0, mean = 0;  // over finite elements; 0 when there are none
  std::int64_t count = 0;             // elements
  std::int64_t nan = 0, inf = 0;
};

// Any numeric or bool tensor (float16/bfloat16 included).
TensorStats tensor_stats(const Tensor& t);

// Inputs made up for a run when none are given: all ones, or seeded uniform
// values ([-1, 1) for floating point, [0, 10) for integers, 0/1 for bool).
enum class Fill { kOnes, kRandom };
Tensor filled_tensor(DataType dtype, const Shape& shape, Fill fill, std::uint64_t seed);

}  // namespace winml::runtime

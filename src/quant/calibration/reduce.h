// Vectorised reductions over calibration values (the hot loops of
// calibration): NaN-ignoring min/max and a double-precision sum. Results are
// the same on every run of the same binary (a fixed evaluation order).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>

namespace winml::quant {

// Runs fn(i) for i in [0, n), possibly on several threads; fn must not care
// which thread runs it (results are combined in index order by the caller).
using ParallelFor = std::function<void(std::int64_t n, const std::function<void(std::int64_t)>& fn)>;

// Values are split into chunks of this many elements, whatever the thread count.
inline constexpr std::int64_t kChunk = 1 << 16;
std::int64_t chunk_count(std::size_t values);

struct MinMax {
  float min = 0, max = 0;
  bool any = false;  // false when empty or all NaN
};

MinMax min_max(std::span<const float> values);
MinMax min_max(std::span<const float> values, const ParallelFor& parallel);  // chunked
// What vmath::min_max's lo and hi say: none when lo > hi (no number).
MinMax min_max_of(float lo, float hi);
// Both ranges (ties keep a's value). Inline: channel sums combine one per row.
inline MinMax combine(const MinMax& a, const MinMax& b) {
  if (!a.any) return b;
  if (!b.any) return a;
  return {std::min(a.min, b.min), std::max(a.max, b.max), true};
}
double sum(std::span<const float> values);

}  // namespace winml::quant

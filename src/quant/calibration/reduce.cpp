#include "quant/calibration/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/vector_math.h"

namespace winml::quant {

MinMax min_max_of(float lo, float hi) {
  MinMax r;
  r.any = lo <= hi;
  r.min = r.any ? lo : std::numeric_limits<float>::quiet_NaN();
  r.max = r.any ? hi : std::numeric_limits<float>::quiet_NaN();
  return r;
}

// Every observed tensor of every sample passes here and through sum() (the
// channel means): one pass each, vectorized for this CPU.
MinMax min_max(std::span<const float> values) {
  if (values.empty()) return {};
  float lo = 0, hi = 0;
  runtime::vmath::min_max(values.data(), static_cast<std::int64_t>(values.size()), &lo, &hi);
  return min_max_of(lo, hi);
}

std::int64_t chunk_count(std::size_t values) { return (static_cast<std::int64_t>(values) + kChunk - 1) / kChunk; }

MinMax min_max(std::span<const float> values, const ParallelFor& parallel) {
  std::int64_t chunks = chunk_count(values.size());
  if (chunks <= 1 || !parallel) return min_max(values);
  std::vector<MinMax> parts(static_cast<std::size_t>(chunks));
  parallel(chunks, [&](std::int64_t i) {
    std::size_t begin = static_cast<std::size_t>(i * kChunk);
    parts[static_cast<std::size_t>(i)] =
        min_max(values.subspan(begin, std::min<std::size_t>(kChunk, values.size() - begin)));
  });
  MinMax r;
  for (const auto& p : parts) r = combine(r, p);
  return r;
}

double sum(std::span<const float> values) {
  return runtime::vmath::sum(values.data(), static_cast<std::int64_t>(values.size()));
}

}  // namespace winml::quant

#include "quant/calibration/reduce.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

namespace winml::quant {

namespace {
using Values = Eigen::Map<const Eigen::ArrayXf>;
}

MinMax min_max(std::span<const float> values) {
  MinMax r;
  if (values.empty()) return r;
  Values v(values.data(), static_cast<Eigen::Index>(values.size()));
  r.min = v.minCoeff<Eigen::PropagateNumbers>();
  r.max = v.maxCoeff<Eigen::PropagateNumbers>();
  r.any = !std::isnan(r.min);
  return r;
}

std::int64_t chunk_count(std::size_t values) { return (static_cast<std::int64_t>(values) + kChunk - 1) / kChunk; }

MinMax combine(const MinMax& a, const MinMax& b) {
  if (!a.any) return b;
  if (!b.any) return a;
  return {std::min(a.min, b.min), std::max(a.max, b.max), true};
}

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
  if (values.empty()) return 0.0;
  return Values(values.data(), static_cast<Eigen::Index>(values.size())).cast<double>().sum();
}

}  // namespace winml::quant

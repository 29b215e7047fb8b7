#include "quant/qparams.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace winml::quant {

QParams compute_qparams(float rmin, float rmax, QRange range, bool symmetric) {
  if (!std::isfinite(rmin)) rmin = 0.0f;
  if (!std::isfinite(rmax)) rmax = 0.0f;
  rmin = std::min(rmin, 0.0f);
  rmax = std::max(rmax, 0.0f);
  if (symmetric) {
    float absmax = std::max(std::fabs(rmin), std::fabs(rmax));
    rmin = -absmax;
    rmax = absmax;
  }
  // The difference is taken in float (as the float32 arrays it comes from),
  // the division in double.
  double dr = static_cast<double>(rmax - rmin);
  double dq = static_cast<double>(range.qmax) - static_cast<double>(range.qmin);
  double scale = dr / dq;
  QParams p;
  if (scale < static_cast<double>(std::numeric_limits<float>::min())) return p;  // {1, 0}
  double zp = symmetric ? std::nearbyint((static_cast<double>(range.qmin) + range.qmax) / 2.0)
                        : std::nearbyint(range.qmin - static_cast<double>(rmin) / scale);
  p.zero_point = static_cast<std::int32_t>(std::clamp<double>(zp, range.qmin, range.qmax));
  p.scale = static_cast<float>(scale);
  return p;
}

std::int32_t quantize_value(float x, const QParams& p, QRange range) {
  float q = std::nearbyint(x / p.scale) + static_cast<float>(p.zero_point);
  if (std::isnan(q)) return std::clamp(p.zero_point, range.qmin, range.qmax);
  q = std::clamp(q, static_cast<float>(range.qmin), static_cast<float>(range.qmax));
  return static_cast<std::int32_t>(q);
}

}  // namespace winml::quant

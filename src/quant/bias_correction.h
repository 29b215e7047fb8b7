// The mean output shift weight rounding causes, E[(W_q - W) x] per output
// channel, from the weight before and after quantization and the per-channel
// mean of the node's input (see PlannedCorrection in qdq_plan.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "quant/qdq_plan.h"

namespace winml::quant {

// One value per output channel; empty when the shapes do not fit (or a mean
// is not finite), in which case the node is left uncorrected.
std::vector<double> output_shift(const PlannedCorrection& c, const std::vector<float>& w,
                                 const std::vector<float>& w_quantized, const std::vector<std::int64_t>& dims,
                                 const std::vector<double>& input_mean);

}  // namespace winml::quant

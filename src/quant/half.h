// IEEE 754 binary16 conversions (round to nearest even), independent of
// compiler support for _Float16.
#pragma once

#include <cstdint>

namespace winml::quant {

std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);

}  // namespace winml::quant

// IEEE 754 binary16 ("half", ONNX float16) conversions, round to nearest
// even, independent of compiler support for _Float16. The one copy the
// runtime, the passes and the quantizer share.
#pragma once

#include <cstdint>

namespace winml {

std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);

}  // namespace winml

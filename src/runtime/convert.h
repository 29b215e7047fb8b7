// Element type conversion with ONNX Cast semantics: floating point to
// integer truncates toward zero, to bool tests != 0, float16/bfloat16 round
// to nearest even. Also how float16 storage is widened for float32 compute.
#pragma once

#include "runtime/tensor.h"

namespace winml::runtime {

// float16 or bfloat16: stored narrow, computed in float32.
bool is_half(DataType t);
// True when convert() handles the pair.
bool can_convert(DataType from, DataType to);
// A new tensor of type `to` (or `src` itself when the type already matches).
Tensor convert(const Tensor& src, DataType to);

}  // namespace winml::runtime

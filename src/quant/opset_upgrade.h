// QDQ quantization needs QuantizeLinear/DequantizeLinear, which opset 10
// introduced: an older model is converted to opset 11 first with ONNX's
// version converter, as ONNX Runtime's quantizer does.
#pragma once

#include <cstdint>
#include <string>

#include "model/model.h"

namespace winml::quant {

inline constexpr std::int64_t kQdqMinOpset = 10;
inline constexpr std::int64_t kQdqUpgradeOpset = 11;

// Converts `m` (in memory) to opset `to`. InputError naming `path` when the
// converter cannot (an operator without an adapter, external data).
void upgrade_opset(model::Model& m, std::int64_t to, const std::string& path);

}  // namespace winml::quant

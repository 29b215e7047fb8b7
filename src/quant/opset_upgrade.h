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

// 4-bit weights (int4/uint4, DequantizeLinear's block_size) need opset 21,
// which libonnx 1.12's converter does not know. From opset 13 on, the
// operators changed since only gained types or optional inputs, except
// these, which are rewritten: the Reduce* of opset 18 take their axes as an
// input (the attribute becomes an int64 constant), GridSample's modes were
// renamed at 20 (bilinear: linear, bicubic: cubic). DFT (its axis became an
// input at 20) and GroupNormalization (its scale and bias per channel at 21)
// are refused, as are models below opset 13: InputError naming `path`.
// The IR version is raised to 10 (4-bit types). No-op from opset 21 on.
inline constexpr std::int64_t kBlockedQdqOpset = 21;
void upgrade_to_opset21(model::Model& m, const std::string& path);

}  // namespace winml::quant

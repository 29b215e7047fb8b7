// Undoing QDQ quantization (for `requantize`): Q→DQ pairs on activations are
// removed and quantized constants behind a DequantizeLinear become float
// initializers again, so the model can be calibrated and quantized afresh.
// A pair whose range starts at exactly 0 becomes a Relu: quantization may have
// folded a Relu into it, and the saturation at 0 is part of what the model
// computes. (An upper saturation, e.g. a folded Clip(0, 6), is not restored.)
#pragma once

#include <cstddef>

#include "model/model.h"

namespace winml::quant {

struct QdqCount {
  std::size_t quantize = 0, dequantize = 0;
  std::size_t total() const { return quantize + dequantize; }
};

// QuantizeLinear / DequantizeLinear nodes (default and com.microsoft domains), all graphs.
QdqCount count_qdq(const onnx::ModelProto& m);

// BuildError when a Q/DQ cannot be undone (a DequantizeLinear of a
// non-constant that no QuantizeLinear produced, a QuantizeLinear whose
// integer output is used directly, Q/DQ inside subgraphs).
void strip_qdq(model::Model& m);

}  // namespace winml::quant

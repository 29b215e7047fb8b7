// Weight-only quantization into com.microsoft MatMulNBits, the format
// language models ship in for ONNX Runtime's CPU and GPU providers: every
// MatMul of the main graph whose B is a float constant matrix [K, N] becomes
// a MatMulNBits reading B's columns quantized in blocks of `block_size`
// along K to `bits` bits, round to nearest (RTN):
//
//   symmetric   scale = max|w| / (2^(bits-1) - 1) per block, codes
//               round(w / scale) + 2^(bits-1), the zero point implied
//   asymmetric  the block's [min, max] (widened to include 0) over
//               2^bits - 1 levels, zero point round(-min / scale), stored
//
// (ties to even, as QuantizeLinear; the same scales compute_qparams gives
// 4-bit QDQ weights, so both formats hold the same values.) Activations
// stay float. A MatMul followed by an Add of a constant [N] takes it as its
// bias.
//
// Tied embeddings: an LM head reading the embedding through a Transpose
// (MatMul(x, Transpose(E)), E [vocabulary, hidden]) gets E quantized
// directly, as MatMulNBits stores B as [N, K] = E's layout; the embedding's
// Gather keeps the float table. So the head is quantized and the lookup
// stays exact, at the cost of holding the table twice (float and 4-bit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "model/model.h"

namespace winml::quant {

struct NBitsOptions {
  std::int64_t bits = 4;
  std::int64_t block_size = 32;
  bool symmetric = true;
  std::int64_t accuracy_level = 0;  // 0: unset (A in float32)
  std::set<std::string> nodes_to_exclude;
};

struct NBitsResult {
  std::size_t quantized = 0;      // MatMuls that became MatMulNBits
  std::size_t skipped = 0;        // MatMuls left in float
  std::size_t biases = 0;         // Adds folded in as the bias input
  std::vector<std::string> tied;  // embeddings an LM head reads transposed, quantized for the head only
  std::vector<std::string> skip_reasons;  // "<node>: <why>", in graph order
};

// Rewrites `m` in place (main graph; If/Loop/Scan bodies stay float and are
// counted as skipped). Its float weights the new nodes replace are removed.
NBitsResult quantize_to_nbits(model::Model& m, const NBitsOptions& options);

// The MatMulNBits inputs of one weight [K, N]: `w` row-major [K, N], or
// [N, K] when `columns_first` (an embedding read transposed).
struct NBitsWeight {
  std::vector<std::uint8_t> codes;  // [N, k_blocks, block_size * bits / 8]
  std::vector<float> scales;        // [N, k_blocks]
  std::vector<std::uint8_t> zeros;  // [N, ceil(k_blocks * bits / 8)], asymmetric only
};
NBitsWeight quantize_nbits_weight(const float* w, std::int64_t k, std::int64_t n, bool columns_first,
                                  const NBitsOptions& o);

}  // namespace winml::quant

// com.microsoft MatMulNBits: Y = A x dequantize(B)^T (+ bias), with B the
// weights [N, K] quantized in blocks of `block_size` along K to `bits` bits:
// B is uint8 [N, k_blocks, block_size * bits / 8], the codes of a block
// packed low bits first; scales [N, k_blocks]; zero points either packed
// the same way, [N, ceil(k_blocks * bits / 8)], or floats [N, k_blocks],
// or absent (2^(bits - 1)). The weight at (n, k) is (code - zero) * scale,
// as DequantizeLinear computes it.
//
// The weights are read where they lie (a memory-mapped file, usually): a
// tile of columns is dequantized into the thread's scratch and multiplied
// there, so no float copy of the weights is ever kept. accuracy_level only
// permits an execution provider to compute with less precision; here A is
// always float32. Every output is one lane_dots dot product, whatever the
// tiling: the bits do not depend on the thread count or instruction set.
#include <algorithm>
#include <cstring>

#include "runtime/kernels/common.h"
#include "runtime/kernels/lane_dot.h"
#include "runtime/kernels/register.h"
#include "runtime/scratch.h"

namespace winml::runtime::kernels {

namespace {

// Columns dequantized at a time, and rows of A multiplied against them at a
// time (so that both stay in the core's cache).
constexpr std::int64_t kColumnTile = 16;
constexpr std::int64_t kRowChunk = 32;

class MatMulNBits : public Kernel {
 public:
  explicit MatMulNBits(const NodeContext& n)
      : k_(n.required_int("K")),
        n_(n.required_int("N")),
        bits_(n.attr_int("bits", 4)),
        block_size_(n.required_int("block_size")) {
    if (k_ <= 0 || n_ <= 0) n.fail("K and N must be positive, got K=" + std::to_string(k_) + " N=" + std::to_string(n_));
    if (bits_ != 2 && bits_ != 4 && bits_ != 8) n.unsupported("bits=" + std::to_string(bits_) + " (2, 4 or 8 are)");
    if (block_size_ < 16 || (block_size_ & (block_size_ - 1)) != 0)
      n.fail("block_size must be a power of two of at least 16, got " + std::to_string(block_size_));
    const std::int64_t level = n.attr_int("accuracy_level", 0);
    if (level < 0 || level > 4) n.fail("accuracy_level must be 0 to 4, got " + std::to_string(level));
    if (n.attr_int("weight_prepacked", 0) != 0) n.unsupported("weights prepacked for another execution provider");
    if (n.has_input(4)) n.unsupported("g_idx (deprecated) is not supported");
    blocks_ = (k_ + block_size_ - 1) / block_size_;
    blob_ = block_size_ * bits_ / 8;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Tensor& scales = ctx.input(2);
    const Tensor* zero = ctx.optional_input(3);
    const Tensor* bias = ctx.optional_input(5);
    check_inputs(a, b, scales, zero, bias);

    Shape out = a.shape();
    out.back() = n_;
    const std::int64_t m = a.size() / k_;
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::FLOAT, out);
    const float* pa = a.data<float>();
    float* py = y.mutable_data<float>();
    const std::int64_t tiles = (n_ + kColumnTile - 1) / kColumnTile;
    ctx.pool().parallel_for(tiles, [&](std::int64_t t) {
      const std::int64_t j0 = t * kColumnTile, cols = std::min(kColumnTile, n_ - j0);
      Scratch panel(static_cast<std::size_t>(kColumnTile * k_) * sizeof(float));
      float* w = panel.as<float>();
      for (std::int64_t c = 0; c < cols; ++c) dequantize_column(b, scales, zero, j0 + c, w + c * k_);
      const float* pb = bias ? bias->data<float>() + j0 : nullptr;
      for (std::int64_t i = 0; i < m; i += kRowChunk)
        lane_dots(pa + i * k_, k_, std::min(kRowChunk, m - i), w, k_, cols, k_, pb, py + i * n_ + j0, n_);
    });
  }

 private:
  void check_inputs(const Tensor& a, const Tensor& b, const Tensor& scales, const Tensor* zero,
                    const Tensor* bias) const {
    if (a.dtype() != onnx::TensorProto::FLOAT) unsupported_type(a.dtype(), "float32");
    if (a.rank() < 1 || a.shape().back() != k_)
      throw InputError("A " + shape_string(a.shape()) + " must end in K=" + std::to_string(k_));
    if (b.dtype() != onnx::TensorProto::UINT8) throw InputError("B must be uint8, got " + dtype_name(b.dtype()));
    if (b.size() != n_ * blocks_ * blob_)
      throw InputError("B " + shape_string(b.shape()) + " must hold [N, k_blocks, blob] = [" + std::to_string(n_) +
                       "," + std::to_string(blocks_) + "," + std::to_string(blob_) + "] bytes");
    if (scales.dtype() != onnx::TensorProto::FLOAT) unsupported_type(scales.dtype(), "float32");
    if (scales.size() != n_ * blocks_)
      throw InputError("scales " + shape_string(scales.shape()) + " must hold N x k_blocks = " +
                       std::to_string(n_ * blocks_) + " values");
    if (zero) {
      if (zero->dtype() == onnx::TensorProto::UINT8) {
        if (zero->size() != n_ * packed_zero_row())
          throw InputError("packed zero_points " + shape_string(zero->shape()) + " must hold N x ceil(k_blocks * bits / 8) = " +
                           std::to_string(n_ * packed_zero_row()) + " bytes");
      } else if (zero->dtype() == onnx::TensorProto::FLOAT) {
        if (zero->size() != n_ * blocks_)
          throw InputError("zero_points " + shape_string(zero->shape()) + " must hold N x k_blocks = " +
                           std::to_string(n_ * blocks_) + " values");
      } else {
        unsupported_type(zero->dtype(), "uint8 or float32 (zero_points)");
      }
    }
    if (bias) {
      if (bias->dtype() != onnx::TensorProto::FLOAT) unsupported_type(bias->dtype(), "float32");
      if (bias->size() != n_) throw InputError("bias " + shape_string(bias->shape()) + " must hold N values");
    }
  }

  std::int64_t packed_zero_row() const { return (blocks_ * bits_ + 7) / 8; }

  // The `bits`-bit code at position t of a packed row (low bits first).
  std::uint32_t code(const std::uint8_t* row, std::int64_t t) const {
    const std::int64_t bit = t * bits_;
    return (static_cast<std::uint32_t>(row[bit / 8]) >> (bit % 8)) & ((1u << bits_) - 1u);
  }

  // Column `col` of the weights (row `col` of B), K floats.
  void dequantize_column(const Tensor& b, const Tensor& scales, const Tensor* zero, std::int64_t col,
                         float* out) const {
    const std::uint8_t* codes = b.data<std::uint8_t>() + col * blocks_ * blob_;
    const float* s = scales.data<float>() + col * blocks_;
    const std::int32_t implied = 1 << (bits_ - 1);
    for (std::int64_t blk = 0; blk < blocks_; ++blk) {
      const std::int64_t k0 = blk * block_size_, len = std::min(block_size_, k_ - k0);
      const std::uint8_t* blob = codes + blk * blob_;
      const float scale = s[blk];
      float* o = out + k0;
      if (zero && zero->dtype() == onnx::TensorProto::FLOAT) {
        const float z = zero->data<float>()[col * blocks_ + blk];
        for (std::int64_t t = 0; t < len; ++t) o[t] = (static_cast<float>(code(blob, t)) - z) * scale;
        continue;
      }
      const std::int32_t z =
          zero ? static_cast<std::int32_t>(code(zero->data<std::uint8_t>() + col * packed_zero_row(), blk)) : implied;
      if (bits_ == 4) {
        for (std::int64_t t = 0; t + 1 < len; t += 2) {
          const std::uint8_t byte = blob[t / 2];
          o[t] = static_cast<float>(static_cast<std::int32_t>(byte & 15u) - z) * scale;
          o[t + 1] = static_cast<float>(static_cast<std::int32_t>(byte >> 4) - z) * scale;
        }
        if (len % 2) o[len - 1] = static_cast<float>(static_cast<std::int32_t>(blob[len / 2] & 15u) - z) * scale;
        continue;
      }
      for (std::int64_t t = 0; t < len; ++t)
        o[t] = static_cast<float>(static_cast<std::int32_t>(code(blob, t)) - z) * scale;
    }
  }

  std::int64_t k_, n_, bits_, block_size_, blocks_ = 0, blob_ = 0;
};

}  // namespace

void register_matmul_nbits(KernelRegistry& r) {
  add(r, "MatMulNBits", 1, 1, make<MatMulNBits>(), kFloatCompute, "com.microsoft");
}

}  // namespace winml::runtime::kernels

// Winograd convolution F(m x m, 3 x 3) (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks"): a 2-D Conv with 3x3 kernels, unit strides
// and dilations and one group computes each m x m block of outputs from an
// (m+2) x (m+2) block of inputs with (m+2)^2 multiplications per input and
// output channel pair instead of 9 m^2: 2.25x fewer for m = 2, 4x for m = 4.
// Those multiplications are (m+2)^2 independent GEMMs over the channels, on
// weights transformed and packed once, at plan time.
//
// Results differ from the direct sum by rounding only (the transforms are
// exact for m = 2 up to halving; m = 4 divides by 6 and 24). Determinism:
// the tile bands, the per-position GEMMs and the transforms depend on the
// shapes alone, so the bits do not depend on the thread count.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/gemm.h"
#include "runtime/kernels/conv_geometry.h"

namespace winml::runtime {
class ThreadPool;
}

namespace winml::runtime::kernels {

class Winograd3x3 {
 public:
  // Whether a Conv with these attributes and weights [K, C, kh, kw] in
  // `group` groups is one Winograd computes, and pays off (enough channels
  // for the GEMMs to dominate the transforms).
  static bool suits(const WindowAttrs& attrs, std::int64_t group, const std::vector<std::int64_t>& weight_shape);
  // The output block size for K output and C input channels: 4, unless the
  // transformed weights (4x the direct ones for m = 4, 1.8x for m = 2) would
  // be large, where layers are deep and images small.
  static int block_for(std::int64_t K, std::int64_t C);

  // `weights` [K, C, 3, 3], row-major.
  Winograd3x3(const float* weights, std::int64_t K, std::int64_t C, int m);

  // y [N, K, OH, OW] (+ bias[K] when given, then clamped at zero with
  // `relu`) from x [N, C, H, W] with the window `w` (3x3 kernel, unit
  // strides and dilations, any pads).
  void run(const float* x, std::int64_t N, const Window& w, const float* bias, bool relu, float* y,
           ThreadPool& pool) const;

  int block() const { return m_; }

 private:
  int m_;
  std::int64_t K_, C_;
  // One packed [C, K] matrix per position of the (m+2) x (m+2) transform.
  std::vector<std::shared_ptr<const PackedWeights>> u_;
};

}  // namespace winml::runtime::kernels

#include "runtime/kernels/winograd.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernels/common.h"
#include "runtime/kernels/winograd_transforms.h"
#include "runtime/scratch.h"
#include "runtime/thread_pool.h"

namespace winml::runtime::kernels {

namespace {

using winograd::Transforms;

// One image band: rows [ty0, ty0 + rows) of m x m output blocks.
struct Band {
  std::int64_t ty0, rows, tiles_x;
  std::int64_t tiles() const { return rows * tiles_x; }
};

// V[xi][c][t] = (B^T d B)[xi] for channels [c0, c1) of image x, position
// xi's matrix `stride` floats after the previous one: a row of tiles at a
// time, from its input rows copied with the padding's zeros.
template <int M>
void transform_inputs(const float* x, const Window& w, const Band& band, std::int64_t c0, std::int64_t c1, float* v,
                      std::int64_t stride) {
  constexpr int A = M + 2;
  const std::int64_t H = w.in[0], W = w.in[1], T = band.tiles();
  const std::int64_t width = winograd::input_row_width(M, band.tiles_x);
  Scratch buffer(sizeof(float) * static_cast<std::size_t>(2 * A * width));
  float* rows = buffer.as<float>();
  float* tmp = rows + A * width;
  // The image's columns in a row: from `begin`, `count` of them.
  const std::int64_t begin = std::clamp<std::int64_t>(w.pad_begin[1], 0, width);
  const std::int64_t first = begin - w.pad_begin[1];
  const std::int64_t count = std::clamp<std::int64_t>(W - first, 0, width - begin);
  for (std::int64_t c = c0; c < c1; ++c) {
    const float* plane = x + c * H * W;
    for (std::int64_t r = 0; r < band.rows; ++r) {
      const std::int64_t iy0 = (band.ty0 + r) * M - w.pad_begin[0];
      for (int i = 0; i < A; ++i) {
        float* row = rows + i * width;
        const std::int64_t iy = iy0 + i;
        if (iy < 0 || iy >= H || count == 0) {
          std::fill(row, row + width, 0.0f);
          continue;
        }
        std::fill(row, row + begin, 0.0f);
        std::memcpy(row + begin, plane + iy * W + first, sizeof(float) * static_cast<std::size_t>(count));
        std::fill(row + begin + count, row + width, 0.0f);
      }
      // Past a row come this thread's next rows and channels, up to c1's.
      const std::int64_t at = c * T + r * band.tiles_x;
      winograd::input_row(M, rows, width, band.tiles_x, tmp, v + at, stride, c1 * T - at);
    }
  }
}

// y = A^T P[t][k] A (+ bias, clamped at zero with `relu`) for tiles
// [t0, t1) of the band, every channel, position xi's matrix `stride` floats
// after the previous one: kLanes channels at a time, the rest one by one.
template <int M>
void transform_outputs(const float* p, const Window& w, const Band& band, std::int64_t t0, std::int64_t t1,
                       std::int64_t K, std::int64_t stride, const float* bias, bool relu, float* y) {
  constexpr int A = M + 2;
  constexpr std::int64_t kLanes = winograd::kLanes;
  const std::int64_t OH = w.out[0], OW = w.out[1];
  for (std::int64_t t = t0; t < t1; ++t) {
    const std::int64_t oy0 = (band.ty0 + t / band.tiles_x) * M, ox0 = (t % band.tiles_x) * M;
    const std::int64_t rows = std::min<std::int64_t>(M, OH - oy0), cols = std::min<std::int64_t>(M, OW - ox0);
    float* block = y + oy0 * OW + ox0;
    std::int64_t k = 0;
    for (; k + kLanes <= K; k += kLanes) {
      float out[M][M][kLanes];
      // (the bias and the clamp in vector code: scalar, the clamp branches)
      winograd::output_lanes(M, p + t * K + k, stride, bias ? bias + k : nullptr, relu, &out[0][0][0]);
      for (std::int64_t l = 0; l < kLanes; ++l) {
        float* dst = block + (k + l) * OH * OW;
        for (std::int64_t i = 0; i < rows; ++i)
          for (std::int64_t j = 0; j < cols; ++j) dst[i * OW + j] = out[i][j][l];
      }
    }
    for (; k < K; ++k) {
      float q[A][A];
      const float* src = p + t * K + k;
      for (int i = 0; i < A; ++i)
        for (int j = 0; j < A; ++j) q[i][j] = src[(i * A + j) * stride];
      float out[M][M];
      winograd::transform_2d(q, out, [](const float* in, float* o) { Transforms<M>::output(in, o); });
      const float b = bias ? bias[k] : 0.0f;
      float* dst = block + k * OH * OW;
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) dst[i * OW + j] = relu ? kernels::relu(out[i][j] + b) : out[i][j] + b;
    }
  }
}

// U[xi] stored [K, C] into `u`, every element written (the transpose of the
// [C, K] the products use, which packing takes as readily): written in the
// order the weights are read, in groups of kLanes channels whose taps are
// first gathered lane by lane, so the transforms run as vector code (the same
// operations per value, hence the same bits, as one channel at a time).
template <int M>
void transform_weights(const float* weights, std::int64_t K, std::int64_t C, float* u) {
  constexpr int A = Transforms<M>::kAlpha;
  constexpr std::int64_t kLanes = 8;
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t c0 = 0; c0 < C; c0 += kLanes) {
      const std::int64_t lanes = std::min(kLanes, C - c0);
      double g[9][kLanes] = {}, rows[A][3][kLanes], out[A][A][kLanes];
      for (std::int64_t l = 0; l < lanes; ++l)
        for (int t = 0; t < 9; ++t) g[t][l] = weights[(k * C + c0 + l) * 9 + t];
      for (int j = 0; j < 3; ++j)
        for (std::int64_t l = 0; l < kLanes; ++l) {
          double column[3] = {g[j][l], g[3 + j][l], g[6 + j][l]}, t[A];
          Transforms<M>::weights(column, t);
          for (int i = 0; i < A; ++i) rows[i][j][l] = t[i];
        }
      for (int i = 0; i < A; ++i)
        for (std::int64_t l = 0; l < kLanes; ++l) {
          double row[3] = {rows[i][0][l], rows[i][1][l], rows[i][2][l]}, t[A];
          Transforms<M>::weights(row, t);
          for (int j = 0; j < A; ++j) out[i][j][l] = t[j];
        }
      for (int i = 0; i < A; ++i)
        for (int j = 0; j < A; ++j) {
          float* dst = u + ((i * A + j) * K + k) * C + c0;
          for (std::int64_t l = 0; l < lanes; ++l) dst[l] = static_cast<float>(out[i][j][l]);
        }
    }
}

// Floats between the transform positions' matrices for `n` floats each: an
// odd number of cache lines. A tile's transform touches one value of every
// position; at an even stride (ResNet's 64 x 196 floats is 784 lines) the
// 36 positions fall into a few L1 sets, more than their ways, and every
// value is a miss.
std::int64_t position_stride(std::int64_t n) {
  constexpr std::int64_t kLine = 16;  // floats per 64-byte line
  std::int64_t lines = (n + kLine - 1) / kLine;
  return (lines | 1) * kLine;
}

template <int M>
void run_blocks(const std::vector<std::shared_ptr<const PackedWeights>>& u, const float* x, std::int64_t N,
                const Window& w, std::int64_t C, std::int64_t K, const float* bias, bool relu, float* y,
                ThreadPool& pool) {
  constexpr int A = Transforms<M>::kAlpha;
  const std::int64_t OH = w.out[0], OW = w.out[1];
  const std::int64_t tiles_y = (OH + M - 1) / M, tiles_x = (OW + M - 1) / M;
  // Bands of block rows whose transformed inputs and products take ~1 MiB,
  // so that the products read them from L2 rather than memory (ResNet-50's
  // 56x56 layers: 2.1 -> 1.3 ms; 4 MiB bands were one per image); but at
  // least the size of the transformed weights, which every band reads again
  // (deep layers with small images stay one band).
  constexpr std::int64_t kBandBytes = std::int64_t{1} << 20;
  const std::int64_t weight_bytes = A * A * C * K * std::int64_t{sizeof(float)};
  const std::int64_t row_bytes = tiles_x * A * A * (C + K) * std::int64_t{sizeof(float)};
  const std::int64_t band_rows = std::clamp<std::int64_t>(std::max(kBandBytes, weight_bytes) / row_bytes, 1, tiles_y);
  const std::int64_t max_tiles = band_rows * tiles_x;
  Scratch v_buffer(sizeof(float) * static_cast<std::size_t>(A * A * position_stride(C * max_tiles)));
  Scratch p_buffer(sizeof(float) * static_cast<std::size_t>(A * A * position_stride(K * max_tiles)));
  float* v = v_buffer.as<float>();
  float* p = p_buffer.as<float>();
  for (std::int64_t n = 0; n < N; ++n) {
    const float* xn = x + n * C * w.in[0] * w.in[1];
    float* yn = y + n * K * OH * OW;
    for (std::int64_t ty0 = 0; ty0 < tiles_y; ty0 += band_rows) {
      const Band band{ty0, std::min(band_rows, tiles_y - ty0), tiles_x};
      const std::int64_t T = band.tiles(), vs = position_stride(C * T), ps = position_stride(T * K);
      parallel_ranges(pool, C, 4,
                      [&](std::int64_t c0, std::int64_t c1) { transform_inputs<M>(xn, w, band, c0, c1, v, vs); });
      // P[xi] [T, K] = V[xi]^T [T, C] x U[xi] [C, K], one product per position.
      pool.parallel_for(A * A, [&](std::int64_t xi) {
        sgemm_packed(*u[static_cast<std::size_t>(xi)], v + xi * vs, T, true, T, p + xi * ps, K, false, pool);
      });
      parallel_ranges(pool, T, 8, [&](std::int64_t t0, std::int64_t t1) {
        transform_outputs<M>(p, w, band, t0, t1, K, ps, bias, relu, yn);
      });
    }
  }
}

}  // namespace

bool Winograd3x3::suits(const WindowAttrs& attrs, std::int64_t group, const std::vector<std::int64_t>& weight_shape) {
  auto all_ones = [](const std::vector<std::int64_t>& v) {
    return std::all_of(v.begin(), v.end(), [](std::int64_t x) { return x == 1; });
  };
  if (group != 1 || weight_shape.size() != 4 || weight_shape[2] != 3 || weight_shape[3] != 3) return false;
  if (!attrs.kernel.empty() && attrs.kernel != std::vector<std::int64_t>{3, 3}) return false;
  if (!all_ones(attrs.strides) || !all_ones(attrs.dilations)) return false;
  return weight_shape[0] >= 16 && weight_shape[1] >= 16;
}

int Winograd3x3::block_for(std::int64_t K, std::int64_t C) { return K * C <= 128 * 128 ? 4 : 2; }

Winograd3x3::Winograd3x3(const float* weights, std::int64_t K, std::int64_t C, int m) : m_(m), K_(K), C_(C) {
  // Panels a compiled plan replays need no transform; the others are filled
  // by one piece of packing work (deferred while a plan is built).
  std::vector<std::pair<std::int64_t, std::shared_ptr<PackedWeights>>> to_fill;
  const std::int64_t positions = (m + 2) * (m + 2);
  for (std::int64_t xi = 0; xi < positions; ++xi) {
    std::shared_ptr<const PackedWeights> packed = replay_packed_weights(PackedWeights::Side::kRight, C, K);
    if (!packed) {
      auto empty = empty_packed_weights(PackedWeights::Side::kRight, C, K);
      to_fill.emplace_back(xi, empty);
      packed = std::move(empty);
    }
    u_.push_back(std::move(packed));
  }
  if (to_fill.empty()) return;
  defer_packing([to_fill = std::move(to_fill), weights, K, C, m, positions] {
    // A block of output channels at a time, all positions, packed while in
    // cache: the whole transform (ResNet-50's deepest: 16 MiB) went through
    // memory, and its pages were faulted in for every packing thread.
    constexpr std::int64_t kBlock = gemm_detail::kRowPanel;
    Scratch u(sizeof(float) * static_cast<std::size_t>(positions * std::min(kBlock, K) * C));
    for (std::int64_t k0 = 0; k0 < K; k0 += kBlock) {
      const std::int64_t rows = std::min(kBlock, K - k0);
      if (m == 4) transform_weights<4>(weights + k0 * C * 9, rows, C, u.as<float>());
      else transform_weights<2>(weights + k0 * C * 9, rows, C, u.as<float>());
      for (const auto& [xi, panels] : to_fill)
        fill_packed_range(*panels, u.as<float>() + xi * rows * C, C, true, k0, k0 + rows);
    }
  });
}

void Winograd3x3::run(const float* x, std::int64_t N, const Window& w, const float* bias, bool relu, float* y,
                      ThreadPool& pool) const {
  if (m_ == 4) run_blocks<4>(u_, x, N, w, C_, K_, bias, relu, y, pool);
  else run_blocks<2>(u_, x, N, w, C_, K_, bias, relu, y, pool);
}

}  // namespace winml::runtime::kernels

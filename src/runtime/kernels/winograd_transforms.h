// The transforms of Winograd's F(m x m, 3 x 3) (see winograd.h): the matrices
// written out once, for scalars, doubles and vectors alike, and the input and
// output transforms of many tiles at once as vector code, compiled for
// several instruction sets and picked at run time. Every variant evaluates
// the same expressions in the same order without contraction into FMA, so
// all compute the bits the scalar transforms compute.
#pragma once

#include <cstdint>
#include <vector>

namespace winml::runtime::kernels::winograd {

// The one-dimensional transforms, written so that the zeros of their
// matrices cost nothing (x * 0 cannot be dropped in IEEE arithmetic): inputs
// B^T d, weights G g, outputs A^T v. T is float, double or a vector of
// floats; the two-dimensional ones apply them to columns, then rows.
template <int M>
struct Transforms;

template <>
struct Transforms<2> {
  static constexpr int kAlpha = 4;
  template <typename T>
  [[gnu::always_inline]] static void input(const T* d, T* o) {
    o[0] = d[0] - d[2];
    o[1] = d[1] + d[2];
    o[2] = d[2] - d[1];
    o[3] = d[1] - d[3];
  }
  template <typename T>
  [[gnu::always_inline]] static void weights(const T* g, T* o) {
    o[0] = g[0];
    o[1] = (g[0] + g[1] + g[2]) / 2;
    o[2] = (g[0] - g[1] + g[2]) / 2;
    o[3] = g[2];
  }
  template <typename T>
  [[gnu::always_inline]] static void output(const T* v, T* o) {
    o[0] = v[0] + v[1] + v[2];
    o[1] = v[1] - v[2] - v[3];
  }
};

template <>
struct Transforms<4> {
  static constexpr int kAlpha = 6;
  template <typename T>
  [[gnu::always_inline]] static void input(const T* d, T* o) {
    o[0] = 4 * d[0] - 5 * d[2] + d[4];
    o[1] = (d[3] + d[4]) - 4 * (d[1] + d[2]);
    o[2] = (d[4] - d[3]) + 4 * (d[1] - d[2]);
    o[3] = (d[4] - d[2]) + 2 * (d[3] - d[1]);
    o[4] = (d[4] - d[2]) - 2 * (d[3] - d[1]);
    o[5] = 4 * d[1] - 5 * d[3] + d[5];
  }
  template <typename T>
  [[gnu::always_inline]] static void weights(const T* g, T* o) {
    o[0] = g[0] / 4;
    o[1] = -(g[0] + g[1] + g[2]) / 6;
    o[2] = -(g[0] - g[1] + g[2]) / 6;
    o[3] = g[0] / 24 + g[1] / 12 + g[2] / 6;
    o[4] = g[0] / 24 - g[1] / 12 + g[2] / 6;
    o[5] = g[2];
  }
  template <typename T>
  [[gnu::always_inline]] static void output(const T* v, T* o) {
    o[0] = v[0] + v[1] + v[2] + v[3] + v[4];
    o[1] = (v[1] - v[2]) + 2 * (v[3] - v[4]);
    o[2] = (v[1] + v[2]) + 4 * (v[3] + v[4]);
    o[3] = (v[1] - v[2]) + 8 * (v[3] - v[4]) + v[5];
  }
};

// out = T in T^T for a square block `in` (R x R) and a one-dimensional
// transform `f` from R values to S: columns first, then rows. (Inlined, like
// the transforms, so the vector code is built for its caller's instruction set.)
template <int R, int S, typename V, typename F>
[[gnu::always_inline]] inline void transform_2d(const V (&in)[R][R], V (&out)[S][S], F f) {
  V cols[S][R];
  for (int j = 0; j < R; ++j) {
    V column[R], t[S];
    for (int i = 0; i < R; ++i) column[i] = in[i][j];
    f(column, t);
    for (int i = 0; i < S; ++i) cols[i][j] = t[i];
  }
  for (int i = 0; i < S; ++i) f(cols[i], out[i]);
}

// Tiles and channels the vector transforms take at once.
inline constexpr int kLanes = 8;

// Floats per row that input_row needs for `tiles` tiles of block m.
inline std::int64_t input_row_width(int m, std::int64_t tiles) {
  return (tiles + kLanes - 1) / kLanes * kLanes * m + 2 * kLanes;
}

// Input transforms (B^T d B) of one row of `tiles` tiles of block m (2 or
// 4): `rows` holds the m + 2 input rows they cover, `width` floats each
// (input_row_width), tile t's columns starting at t * m, zeros where the
// image is padded and past its end. Value (i, j) of tile t goes to
// out[(i * (m + 2) + j) * stride + t]; the floats from `tiles` up to
// `writable` may be overwritten too (the caller's next rows, written later:
// whole vectors are stored where they fit). `tmp`: (m + 2) * width floats.
void input_row(int m, const float* rows, std::int64_t width, std::int64_t tiles, float* tmp, float* out,
               std::int64_t stride, std::int64_t writable);

// Output transforms (A^T v A) of one tile for kLanes channels: v(i, j) of
// channel l is p[(i * (m + 2) + j) * stride + l]; out[(i * m + j) * kLanes + l]
// receives value (i, j) of channel l's m x m block, plus bias[l] when
// `bias` is given, then clamped at zero (x < 0 ? 0 : x) with `relu`.
void output_lanes(int m, const float* p, std::int64_t stride, const float* bias, bool relu, float* out);

// The two functions above for one instruction set.
struct TransformKernels {
  const char* isa;  // "avx2" or "generic"
  void (*input_row)(int, const float*, std::int64_t, std::int64_t, float*, float*, std::int64_t, std::int64_t);
  void (*output_lanes)(int, const float*, std::int64_t, const float*, bool, float*);
};
// Every variant this CPU can run, widest first: the first is the one used.
std::vector<const TransformKernels*> transform_kernels_this_cpu_runs();

}  // namespace winml::runtime::kernels::winograd

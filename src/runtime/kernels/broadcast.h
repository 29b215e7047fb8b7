// Numpy-style broadcasting for element-wise kernels with up to three
// inputs. Dimensions are collapsed where every input is either contiguous or
// broadcast along them, so the innermost loop runs over long stretches with
// each input's stride 0 (broadcast) or 1 (contiguous).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/tensor.h"

namespace winml::runtime::kernels {

template <std::size_t N>
class Broadcast {
 public:
  // Defined once for each N in broadcast.cpp: element-wise kernels build
  // one per call, and inlined into each element type's loop it would be
  // compiled dozens of times.
  Broadcast(const Shape& out, const std::array<const Shape*, N>& inputs);

  const Shape& out_shape() const { return out_; }
  std::int64_t size() const { return shape_size(out_); }

  // fn(out_offset, offsets, inner_strides, len) for the contiguous runs of
  // output elements [begin, end). inner_strides[k] is 0 or 1.
  template <typename F>
  void for_runs(std::int64_t begin, std::int64_t end, F&& fn) const {
    int rank = static_cast<int>(dims_.size());
    std::vector<std::int64_t> idx(static_cast<std::size_t>(rank));
    std::array<std::int64_t, N> off{};
    std::int64_t rest = begin;
    for (int d = rank - 1; d >= 0; --d) {
      idx[static_cast<std::size_t>(d)] = rest % dims_[static_cast<std::size_t>(d)];
      rest /= dims_[static_cast<std::size_t>(d)];
      for (std::size_t k = 0; k < N; ++k)
        off[k] += idx[static_cast<std::size_t>(d)] * strides_[k][static_cast<std::size_t>(d)];
    }
    std::array<std::int64_t, N> inner;
    for (std::size_t k = 0; k < N; ++k) inner[k] = strides_[k].back();
    std::int64_t inner_dim = dims_.back();
    std::int64_t i = begin;
    while (i < end) {
      std::int64_t len = std::min(inner_dim - idx.back(), end - i);
      fn(i, off, inner, len);
      i += len;
      idx.back() += len;
      for (std::size_t k = 0; k < N; ++k) off[k] += len * inner[k];
      // Carry into outer dimensions.
      for (int d = rank - 1; d > 0 && idx[static_cast<std::size_t>(d)] == dims_[static_cast<std::size_t>(d)]; --d) {
        for (std::size_t k = 0; k < N; ++k)
          off[k] += strides_[k][static_cast<std::size_t>(d - 1)] -
                    dims_[static_cast<std::size_t>(d)] * strides_[k][static_cast<std::size_t>(d)];
        idx[static_cast<std::size_t>(d)] = 0;
        ++idx[static_cast<std::size_t>(d - 1)];
      }
    }
  }

 private:
  Shape out_;
  std::vector<std::int64_t> dims_;
  std::array<std::vector<std::int64_t>, N> strides_;
};

}  // namespace winml::runtime::kernels

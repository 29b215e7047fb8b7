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
  Broadcast(const Shape& out, const std::array<const Shape*, N>& inputs) : out_(out) {
    int rank = static_cast<int>(out.size());
    std::array<std::vector<std::int64_t>, N> strides;
    for (std::size_t k = 0; k < N; ++k) {
      const Shape& s = *inputs[k];
      int offset = rank - static_cast<int>(s.size());
      std::vector<std::int64_t> st(static_cast<std::size_t>(rank), 0);
      std::int64_t acc = 1;
      for (int d = rank - 1; d >= offset; --d) {
        std::int64_t dim = s[static_cast<std::size_t>(d - offset)];
        st[static_cast<std::size_t>(d)] = dim == 1 ? 0 : acc;
        acc *= dim;
      }
      strides[k] = std::move(st);
    }
    // Drop size-1 output dims, then merge neighbours with compatible strides.
    for (int d = 0; d < rank; ++d) {
      std::int64_t dim = out[static_cast<std::size_t>(d)];
      if (dim == 1) continue;
      bool merge = !dims_.empty();
      for (std::size_t k = 0; merge && k < N; ++k)
        merge = strides_[k].back() == strides[k][static_cast<std::size_t>(d)] * dim;
      if (merge) {
        dims_.back() *= dim;
        for (std::size_t k = 0; k < N; ++k) strides_[k].back() = strides[k][static_cast<std::size_t>(d)];
      } else {
        dims_.push_back(dim);
        for (std::size_t k = 0; k < N; ++k) strides_[k].push_back(strides[k][static_cast<std::size_t>(d)]);
      }
    }
    if (dims_.empty()) {
      dims_.push_back(1);
      for (std::size_t k = 0; k < N; ++k) strides_[k].push_back(0);
    }
  }

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

#include "runtime/kernels/broadcast.h"

namespace winml::runtime::kernels {

template <std::size_t N>
Broadcast<N>::Broadcast(const Shape& out, const std::array<const Shape*, N>& inputs) : out_(out) {
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

template class Broadcast<1>;
template class Broadcast<2>;
template class Broadcast<3>;

}  // namespace winml::runtime::kernels

// Element-wise loops over broadcast inputs, shared by the binary, variadic
// and ternary (Where) kernels.
#pragma once

#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/common.h"

namespace winml::runtime::kernels {

// out[i] = op(a[i], b[i]) with numpy broadcasting; `out` has the broadcast shape.
template <typename A, typename B, typename R, typename Op>
void binary_loop(const Tensor& a, const Tensor& b, Tensor& out, ThreadPool& pool, Op op) {
  const A* pa = a.data<A>();
  const B* pb = b.data<B>();
  R* po = out.mutable_data<R>();
  std::int64_t n = out.size();
  if (a.shape() == b.shape()) {
    parallel_ranges(pool, n, kElementwiseGrain, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) po[i] = op(pa[i], pb[i]);
    });
    return;
  }
  Broadcast<2> bc(out.shape(), {&a.shape(), &b.shape()});
  parallel_ranges(pool, n, kElementwiseGrain, [&](std::int64_t begin, std::int64_t end) {
    bc.for_runs(begin, end,
                [&](std::int64_t o, const std::array<std::int64_t, 2>& off, const std::array<std::int64_t, 2>& inner,
                    std::int64_t len) {
                  const A* x = pa + off[0];
                  const B* y = pb + off[1];
                  R* z = po + o;
                  if (inner[0] && inner[1]) {
                    for (std::int64_t i = 0; i < len; ++i) z[i] = op(x[i], y[i]);
                  } else if (inner[0]) {
                    const B yv = *y;
                    for (std::int64_t i = 0; i < len; ++i) z[i] = op(x[i], yv);
                  } else if (inner[1]) {
                    const A xv = *x;
                    for (std::int64_t i = 0; i < len; ++i) z[i] = op(xv, y[i]);
                  } else {
                    const R v = op(*x, *y);
                    for (std::int64_t i = 0; i < len; ++i) z[i] = v;
                  }
                });
  });
}

// out[i] = op(a[i]) over equal shapes.
template <typename A, typename R, typename Op>
void unary_loop(const Tensor& a, Tensor& out, ThreadPool& pool, Op op) {
  const A* pa = a.data<A>();
  R* po = out.mutable_data<R>();
  parallel_ranges(pool, out.size(), kElementwiseGrain, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) po[i] = op(pa[i]);
  });
}

}  // namespace winml::runtime::kernels

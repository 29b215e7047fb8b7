// A kernel applying a per-element functor Op (constructed from the node's
// attributes) to one input of a type family.
#pragma once

#include "runtime/kernels/elementwise.h"

namespace winml::runtime::kernels {

enum class Family { kFloat, kNumeric, kSignedOrFloat };

template <typename Op, Family F>
class Unary : public Kernel {
 public:
  explicit Unary(const NodeContext& n) : op_(n) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    auto body = [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
      const Op& op = op_;
      unary_loop<T, T>(x, y, ctx.pool(), [&op](T v) { return op(v); });
    };
    if constexpr (F == Family::kFloat) dispatch_float(x.dtype(), body);
    else dispatch_numeric(x.dtype(), body);
  }

 private:
  Op op_;
};

}  // namespace winml::runtime::kernels

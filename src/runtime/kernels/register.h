// Registration of the built-in kernels, one function per op family.
#pragma once

#include <memory>
#include <string>

#include "runtime/kernel_registry.h"

namespace winml::runtime::kernels {

void register_builtin_kernels(KernelRegistry& r);

void register_elementwise_binary(KernelRegistry& r);
void register_elementwise_unary(KernelRegistry& r);
void register_activations(KernelRegistry& r);
void register_gemm_matmul(KernelRegistry& r);
void register_matmul_nbits(KernelRegistry& r);
void register_conv(KernelRegistry& r);
void register_pooling(KernelRegistry& r);
void register_normalization(KernelRegistry& r);
void register_softmax(KernelRegistry& r);
void register_reduce(KernelRegistry& r);
void register_shape_ops(KernelRegistry& r);
void register_transpose(KernelRegistry& r);
void register_concat_split(KernelRegistry& r);
void register_slice_pad_tile(KernelRegistry& r);
void register_gather_scatter(KernelRegistry& r);
void register_resize(KernelRegistry& r);
void register_cast(KernelRegistry& r);
void register_quantize(KernelRegistry& r);
void register_control_flow(KernelRegistry& r);
void register_misc(KernelRegistry& r);
void register_einsum(KernelRegistry& r);
void register_rnn(KernelRegistry& r);
void register_signal(KernelRegistry& r);
void register_losses(KernelRegistry& r);
void register_detection(KernelRegistry& r);
void register_integer_ops(KernelRegistry& r);
void register_spatial(KernelRegistry& r);

// A factory constructing K from the NodeContext.
template <typename K>
KernelFactory make() {
  return [](const NodeContext& n) -> std::unique_ptr<Kernel> { return std::make_unique<K>(n); };
}

// Registers `op` of the default domain for opsets [since, until].
inline void add(KernelRegistry& r, const std::string& op, std::int64_t since, std::int64_t until, KernelFactory f,
                KernelTraits traits = {}, const std::string& domain = "") {
  r.add(KernelEntry{domain, op, since, until, std::move(f), traits});
}

inline constexpr KernelTraits kFloatCompute{false, true};
inline constexpr KernelTraits kFloatComputeInPlace{false, true, true};
inline constexpr KernelTraits kAlias{true, false};
inline constexpr KernelTraits kFloatComputeFoldingRelu{.widen_half = true, .folds_relu = true};
inline constexpr KernelTraits kFloatComputeInPlaceFoldingRelu{
    .widen_half = true, .may_write_over_input0 = true, .folds_relu = true};

}  // namespace winml::runtime::kernels

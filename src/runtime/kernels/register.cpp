#include "runtime/kernels/register.h"

#include "runtime/ref_blob/epcontext_kernel.h"

namespace winml::runtime::kernels {

void register_builtin_kernels(KernelRegistry& r) {
  register_elementwise_binary(r);
  register_elementwise_unary(r);
  register_activations(r);
  register_gemm_matmul(r);
  register_matmul_nbits(r);
  register_conv(r);
  register_pooling(r);
  register_normalization(r);
  register_softmax(r);
  register_reduce(r);
  register_shape_ops(r);
  register_transpose(r);
  register_concat_split(r);
  register_slice_pad_tile(r);
  register_gather_scatter(r);
  register_resize(r);
  register_cast(r);
  register_quantize(r);
  register_control_flow(r);
  register_misc(r);
  register_einsum(r);
  register_rnn(r);
  register_signal(r);
  register_losses(r);
  register_detection(r);
  register_integer_ops(r);
  register_spatial(r);
  ref_blob::register_epcontext_kernel(r);  // compiled `ref` EPContext nodes
}

}  // namespace winml::runtime::kernels

// Factories of the passes (one .cpp each); only registry.cpp needs these.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace winml::passes {

std::unique_ptr<Pass> make_infer_shapes();
std::unique_ptr<Pass> make_fold_constants();
std::unique_ptr<Pass> make_eliminate_identity();
std::unique_ptr<Pass> make_eliminate_dropout();
std::unique_ptr<Pass> make_eliminate_nop_cast();
std::unique_ptr<Pass> make_eliminate_nop_reshape();
std::unique_ptr<Pass> make_eliminate_nop_transpose();
std::unique_ptr<Pass> make_eliminate_nop_pad();
std::unique_ptr<Pass> make_eliminate_nop_expand();
std::unique_ptr<Pass> make_eliminate_nop_slice();
std::unique_ptr<Pass> make_fuse_consecutive_transposes();
std::unique_ptr<Pass> make_fuse_consecutive_reshapes();
std::unique_ptr<Pass> make_fuse_bn_into_conv();
std::unique_ptr<Pass> make_fuse_add_bias_into_conv();
std::unique_ptr<Pass> make_fuse_matmul_add_into_gemm();
std::unique_ptr<Pass> make_fuse_layer_norm();
std::unique_ptr<Pass> make_fuse_gelu();
std::unique_ptr<Pass> make_eliminate_common_subexpressions();
std::unique_ptr<Pass> make_eliminate_dead_nodes();
std::unique_ptr<Pass> make_eliminate_unused_initializers();
std::unique_ptr<Pass> make_eliminate_duplicate_initializers();

}  // namespace winml::passes

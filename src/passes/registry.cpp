#include "passes/registry.h"

#include "passes/all_passes.h"

namespace winml::passes {

const std::vector<PassInfo>& pass_registry() {
  static const std::vector<PassInfo> registry = {
      {"infer_shapes", make_infer_shapes},
      {"fold_constants", make_fold_constants},
      {"eliminate_identity", make_eliminate_identity},
      {"eliminate_dropout", make_eliminate_dropout},
      {"eliminate_nop_cast", make_eliminate_nop_cast},
      {"eliminate_nop_reshape", make_eliminate_nop_reshape},
      {"eliminate_nop_transpose", make_eliminate_nop_transpose},
      {"eliminate_nop_pad", make_eliminate_nop_pad},
      {"eliminate_nop_expand", make_eliminate_nop_expand},
      {"eliminate_nop_slice", make_eliminate_nop_slice},
      {"fuse_consecutive_transposes", make_fuse_consecutive_transposes},
      {"fuse_consecutive_reshapes", make_fuse_consecutive_reshapes},
      {"fuse_bn_into_conv", make_fuse_bn_into_conv},
      {"fuse_add_bias_into_conv", make_fuse_add_bias_into_conv},
      {"fuse_matmul_add_into_gemm", make_fuse_matmul_add_into_gemm},
      {"fuse_layer_norm", make_fuse_layer_norm},
      {"fuse_gelu", make_fuse_gelu},
      {"eliminate_common_subexpressions", make_eliminate_common_subexpressions},
      {"eliminate_dead_nodes", make_eliminate_dead_nodes},
      {"eliminate_unused_initializers", make_eliminate_unused_initializers},
      {"eliminate_duplicate_initializers", make_eliminate_duplicate_initializers},
  };
  return registry;
}

const PassInfo* find_pass(std::string_view name) {
  for (const auto& p : pass_registry())
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const auto& p : pass_registry()) names.push_back(p.name);
  return names;
}

}  // namespace winml::passes

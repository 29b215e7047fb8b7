// The runtime's kernel for com.microsoft::EPContext nodes whose `source` is
// the built-in `ref` backend: it loads the node's blob (inline, or the file
// its relative ep_cache_context names next to the model) and runs the plan
// inside as one step of the enclosing model.
#pragma once

#include "runtime/kernel_registry.h"

namespace winml::runtime::ref_blob {

void register_epcontext_kernel(KernelRegistry& r);

}  // namespace winml::runtime::ref_blob

// A Plan made from a blob's decoded metadata and its data section (internal
// to ref_blob): the constants, the packed weights, then the steps with their
// kernels.
#pragma once

#include <memory>
#include <string>

#include "runtime/plan.h"
#include "runtime/ref_blob/plan_codec.h"

namespace winml::runtime::ref_blob {

// `data` is the blob's data section, kept alive by `keepalive` (constants
// and packed weights are views of it where aligned). Consumes `meta`.
std::shared_ptr<const Plan> plan_from_meta(Meta& meta, const char* data, const std::shared_ptr<const void>& keepalive,
                                           const std::string& what);

}  // namespace winml::runtime::ref_blob

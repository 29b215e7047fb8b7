// The one thing about the machine that can reach the bytes of a stage that
// computes with the CPU runtime (optimize, analyze, quantize, compile): its
// arithmetic (base/instruction_set.h: arithmetic_identity()). AVX2 and
// AVX-512 machines share it and give the same bytes; the generic variant
// (no fused multiply-add) does not, so it enters the key, and a cache
// never serves one arithmetic's bytes to the other (docs/runtime.md).
#pragma once

#include "base/instruction_set.h"
#include "pipeline/declarations.h"

namespace winml::stages {

inline void declare_runtime_arithmetic(pipeline::Declarations& d) {
  d.values["runtime.arithmetic"] = arithmetic_identity();
}

}  // namespace winml::stages

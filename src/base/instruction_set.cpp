#include "base/instruction_set.h"

#include <cstdlib>
#include <string_view>

#include "base/cpu_features.h"
#include "base/error.h"
#include "base/this_process.h"

namespace winml {

const char* instruction_set_name(InstructionSet isa) {
  switch (isa) {
    case InstructionSet::kAvx512: return "avx512";
    case InstructionSet::kAvx2: return "avx2";
    case InstructionSet::kGeneric: break;
  }
  return "generic";
}

InstructionSet cpu_instruction_set() {
  const CpuFeatures& cpu = cpu_features();
  if (cpu.fma && cpu.avx512f && cpu.avx512dq && cpu.avx512vl && cpu.avx512bw) return InstructionSet::kAvx512;
  if (cpu.fma && cpu.avx2) return InstructionSet::kAvx2;
  return InstructionSet::kGeneric;
}

namespace {

InstructionSet choose() {
  const InstructionSet cpu = cpu_instruction_set();
  const std::string want = environment_variable("WINML_RUNTIME_ISA").value_or("");
  if (want.empty()) return cpu;
  InstructionSet asked;
  if (want == "generic") asked = InstructionSet::kGeneric;
  else if (want == "avx2") asked = InstructionSet::kAvx2;
  else if (want == "avx512") asked = InstructionSet::kAvx512;
  else
    throw InputError("WINML_RUNTIME_ISA=" + std::string(want) + ": expected generic, avx2 or avx512");
  return asked < cpu ? asked : cpu;
}

}  // namespace

InstructionSet runtime_instruction_set() {
  static const InstructionSet isa = choose();
  return isa;
}

std::string libm_variant() {
  const CpuFeatures& cpu = cpu_features();
  if (cpu.fma && cpu.avx2) return "fma";
  if (cpu_has_fma4()) return "fma4";
  return "sse2";
}

std::string arithmetic_identity() {
  const bool fused = runtime_instruction_set() != InstructionSet::kGeneric;
  return std::string("gemm=") + (fused ? "fma" : "separate") + " libm=" + libm_variant();
}

}  // namespace winml

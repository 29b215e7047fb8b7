// Kernel tables compiled once per instruction set (explicit target
// attributes), the ones this CPU can run, and the one the runtime uses
// (base/instruction_set.h: the CPU's widest, or $WINML_RUNTIME_ISA's).
#pragma once

#include <vector>

#include "base/instruction_set.h"

namespace winml::runtime {

// The tables this CPU can run, widest first: `avx512` (optional), `avx2`,
// then `generic`, which every x86-64 runs. (Tests compare them.)
template <typename Table>
std::vector<const Table*> runnable_variants(const Table* avx512, const Table* avx2, const Table* generic) {
  const InstructionSet cpu = cpu_instruction_set();
  std::vector<const Table*> out;
  if (avx512 && cpu == InstructionSet::kAvx512) out.push_back(avx512);
  if (cpu >= InstructionSet::kAvx2) out.push_back(avx2);
  out.push_back(generic);
  return out;
}

// The table for runtime_instruction_set(): `avx2` stands in for a missing
// `avx512`.
template <typename Table>
const Table* chosen_variant(const Table* avx512, const Table* avx2, const Table* generic) {
  switch (runtime_instruction_set()) {
    case InstructionSet::kAvx512: return avx512 ? avx512 : avx2;
    case InstructionSet::kAvx2: return avx2;
    case InstructionSet::kGeneric: break;
  }
  return generic;
}

}  // namespace winml::runtime

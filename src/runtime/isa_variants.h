// Kernel tables compiled once per instruction set (explicit target
// attributes), and the ones this CPU can run.
#pragma once

#include <vector>

namespace winml::runtime {

// The tables this CPU can run, widest first (the first is the one to use):
// `avx512` (optional), `avx2`, then `generic`, which every x86-64 runs.
template <typename Table>
std::vector<const Table*> runnable_variants(const Table* avx512, const Table* avx2, const Table* generic) {
  __builtin_cpu_init();
  std::vector<const Table*> out;
  if (avx512 && __builtin_cpu_supports("avx512f")) out.push_back(avx512);
  if (__builtin_cpu_supports("avx2")) out.push_back(avx2);
  out.push_back(generic);
  return out;
}

}  // namespace winml::runtime

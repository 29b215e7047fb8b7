// What this CPU (and the operating system, for the vector registers it must
// save) supports, read with CPUID the first time it is asked. Not GCC's
// __builtin_cpu_supports: linking it runs libgcc's probe of every feature
// as a constructor of the process, tens of CPUID instructions that each
// trap to the hypervisor in a virtual machine, on every start-up of
// winml-make, a no-op build included (2-3% of a no-op of one model).
#pragma once

namespace winml {

struct CpuFeatures {
  // The vector extensions as GCC's __builtin_cpu_supports reports them:
  // set only when the operating system saves the registers they use.
  bool ymm_state_saved = false;  // XCR0: the OS saves the YMM registers AVX-class features use
  bool fma = false;
  bool avx2 = false;
  bool avx512f = false;
  bool avx512dq = false;
  bool avx512vl = false;
  bool avx512bw = false;
};

// Read once per process, on first use (three CPUID leaves: 0, 1, 7).
const CpuFeatures& cpu_features();

// AMD's FMA4, as GCC reports it: in the extended leaves, two CPUIDs more,
// read only when asked (a CPU with AVX2 and FMA never needs to be).
bool cpu_has_fma4();

}  // namespace winml

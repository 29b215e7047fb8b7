#include "base/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace winml {

namespace {

#if defined(__x86_64__) || defined(__i386__)
// The same rules as libgcc's get_available_features: AVX-class features
// count only when XCR0 says the OS saves the YMM state (bits 1, 2), AVX-512
// ones only when it also saves the opmask and ZMM state (bits 5, 6, 7).
CpuFeatures read_cpu_features() {
  CpuFeatures f;
  unsigned a = 0, b = 0, c = 0, d = 0;
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf < 1) return f;
  __cpuid(1, a, b, c, d);
  bool avx_usable = false, avx512_usable = false;
  if (c & bit_OSXSAVE) {
    unsigned xcr0 = 0, high = 0;
    __asm__("xgetbv" : "=a"(xcr0), "=d"(high) : "c"(0));
    avx_usable = (xcr0 & 0x6u) == 0x6u;
    f.ymm_state_saved = avx_usable;
    avx512_usable = avx_usable && (xcr0 & 0xe0u) == 0xe0u;
  }
  if (avx_usable) f.fma = (c & bit_FMA) != 0;
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    if (avx_usable) f.avx2 = (b & bit_AVX2) != 0;
    if (avx512_usable) {
      f.avx512f = (b & bit_AVX512F) != 0;
      f.avx512dq = (b & bit_AVX512DQ) != 0;
      f.avx512vl = (b & bit_AVX512VL) != 0;
      f.avx512bw = (b & bit_AVX512BW) != 0;
    }
  }
  return f;
}

bool read_fma4() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!cpu_features().ymm_state_saved || __get_cpuid_max(0x80000000u, nullptr) < 0x80000001u) return false;
  __cpuid(0x80000001u, a, b, c, d);
  return (c & bit_FMA4) != 0;
}
#else
CpuFeatures read_cpu_features() { return {}; }
bool read_fma4() { return false; }
#endif

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = read_cpu_features();
  return features;
}

bool cpu_has_fma4() {
  static const bool fma4 = read_fma4();
  return fma4;
}

}  // namespace winml

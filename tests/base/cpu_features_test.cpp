#include "base/cpu_features.h"

#include <gtest/gtest.h>

#include "base/instruction_set.h"

namespace winml {
namespace {

// cpu_features() reads CPUID itself (so that the binary links no probe run
// at start-up); it must say what GCC's own probe says on this machine.
TEST(CpuFeatures, AgreeWithGccsProbe) {
  __builtin_cpu_init();
  const CpuFeatures& cpu = cpu_features();
  EXPECT_EQ(cpu.fma, static_cast<bool>(__builtin_cpu_supports("fma")));
  EXPECT_EQ(cpu_has_fma4(), static_cast<bool>(__builtin_cpu_supports("fma4")));
  EXPECT_EQ(cpu.avx2, static_cast<bool>(__builtin_cpu_supports("avx2")));
  EXPECT_EQ(cpu.avx512f, static_cast<bool>(__builtin_cpu_supports("avx512f")));
  EXPECT_EQ(cpu.avx512dq, static_cast<bool>(__builtin_cpu_supports("avx512dq")));
  EXPECT_EQ(cpu.avx512vl, static_cast<bool>(__builtin_cpu_supports("avx512vl")));
  EXPECT_EQ(cpu.avx512bw, static_cast<bool>(__builtin_cpu_supports("avx512bw")));
}

TEST(CpuFeatures, InstructionSetFollowsThem) {
  const CpuFeatures& cpu = cpu_features();
  const InstructionSet expected = cpu.fma && cpu.avx512f && cpu.avx512dq && cpu.avx512vl && cpu.avx512bw
                                      ? InstructionSet::kAvx512
                                  : cpu.fma && cpu.avx2 ? InstructionSet::kAvx2
                                                        : InstructionSet::kGeneric;
  EXPECT_EQ(cpu_instruction_set(), expected);
}

}  // namespace
}  // namespace winml

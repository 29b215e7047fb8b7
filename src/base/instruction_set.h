// The x86-64 instruction set the CPU runtime's kernels are chosen for: the
// widest this CPU runs, or a lower one named by $WINML_RUNTIME_ISA. One
// answer per process, asked by every kernel table, the GEMM, and the build
// plan's memo key (a plan made on another machine is made again).
#pragma once

#include <string>

namespace winml {

enum class InstructionSet { kGeneric, kAvx2, kAvx512 };

// "generic", "avx2" or "avx512".
const char* instruction_set_name(InstructionSet isa);

// What this CPU runs: AVX-512 needs F, DQ, VL and BW; AVX2 needs FMA too;
// generic is x86-64's baseline (SSE2).
InstructionSet cpu_instruction_set();

// cpu_instruction_set(), lowered (never raised) to $WINML_RUNTIME_ISA when
// that names one: generic, avx2 or avx512. Decided once; an unknown value is
// an InputError naming the variable.
InstructionSet runtime_instruction_set();

// What glibc's libm runs for exp, log, pow, sin, cos, tan and atan: its
// fused multiply-add code when the CPU has FMA and AVX2 ("fma"), AMD's FMA4
// ("fma4"), else plain SSE2 ("sse2"). It is chosen from the CPU, whatever
// $WINML_RUNTIME_ISA says, and the results of its variants may differ in
// the last bit.
std::string libm_variant();

// What of the instruction set can reach a result's bits, as one word for
// keys: the GEMM's arithmetic ("fma" on AVX2 and AVX-512, "separate" on the
// generic variant: runtime/gemm.h) and libm_variant(), e.g.
// "gemm=fma libm=fma". Builds whose identities agree give the same bytes;
// AVX2 and AVX-512 machines agree.
std::string arithmetic_identity();

}  // namespace winml

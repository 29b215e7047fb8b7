// Digests of the code each stage runs, computed when the tool is built
// (src/pipeline/code_digest.cmake): per library, its sources and headers and
// those of every library it links ("winml_quant"); per stage adapter, its own
// two files ("stages/quantize_stage"). A stage declares its units
// (Declarations::code) and their digests enter its key, so editing the
// quantizer invalidates quantize (and what follows, by content) but not
// optimize, with no version number to remember to bump.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace winml::pipeline {

struct CodeUnit {
  std::string_view name;
  std::string_view digest;  // 32 hex digits
  bool computes_with_runtime;  // one of its files is the CPU runtime's (runtime/)
};

// Every unit this binary was built from, sorted by name.
std::vector<CodeUnit> code_units();
// The digest of `unit`; std::logic_error for a unit that does not exist.
std::string code_digest(std::string_view unit);
// Whether `unit` computes with the CPU runtime, whose arithmetic can then
// reach the stage's bytes (stages declaring it get its identity in their
// key: pipeline/declarations.h); std::logic_error for an unknown unit.
bool computes_with_runtime(std::string_view unit);

namespace detail {
extern const CodeUnit kCodeUnits[];
extern const std::size_t kCodeUnitCount;
}  // namespace detail

}  // namespace winml::pipeline

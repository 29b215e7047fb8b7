#include "pipeline/code_digest.h"

#include <stdexcept>

namespace winml::pipeline {

namespace {

const CodeUnit& unit_named(std::string_view unit) {
  for (std::size_t i = 0; i < detail::kCodeUnitCount; ++i)
    if (detail::kCodeUnits[i].name == unit) return detail::kCodeUnits[i];
  throw std::logic_error("no code unit '" + std::string(unit) + "' (src/CMakeLists.txt lists them)");
}

}  // namespace

std::vector<CodeUnit> code_units() { return {detail::kCodeUnits, detail::kCodeUnits + detail::kCodeUnitCount}; }

std::string code_digest(std::string_view unit) { return std::string(unit_named(unit).digest); }

bool computes_with_runtime(std::string_view unit) { return unit_named(unit).computes_with_runtime; }

}  // namespace winml::pipeline

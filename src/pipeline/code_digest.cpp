#include "pipeline/code_digest.h"

#include <stdexcept>

namespace winml::pipeline {

std::vector<CodeUnit> code_units() { return {detail::kCodeUnits, detail::kCodeUnits + detail::kCodeUnitCount}; }

std::string code_digest(std::string_view unit) {
  for (std::size_t i = 0; i < detail::kCodeUnitCount; ++i)
    if (detail::kCodeUnits[i].name == unit) return std::string(detail::kCodeUnits[i].digest);
  throw std::logic_error("no code unit '" + std::string(unit) + "' (src/CMakeLists.txt lists them)");
}

}  // namespace winml::pipeline

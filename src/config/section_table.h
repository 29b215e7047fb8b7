// The sections of winml.toml, in the order the documentation shows them,
// each with its schema and the member of ModelSettings that holds it.
// Validation, reading, the canonical JSON, the subsets stages declare, the
// example and the reference all iterate this table: a section is one entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace winml::config {

enum class SectionPlace {
  kProject,  // once, at the top level ([build])
  kModel,    // [model] or [[model]] entries
  kStage,    // at the top level, and overridden inside a [[model]] entry
};

struct ConfigSection {
  std::string_view name;
  SectionPlace place;
  const SectionSchema& (*schema)();
  json (*write)(const ModelSettings& settings);  // every key, sorted
  void (*read)(ModelSettings& settings, const json& section);
};

const std::vector<ConfigSection>& config_sections();
// The section of that name, or null.
const ConfigSection* find_config_section(std::string_view name);
// The section of that name; std::logic_error for another name (a bug).
const ConfigSection& config_section(std::string_view name);
// The names of the sections in `place`, in table order.
std::vector<std::string> section_names(SectionPlace place);
// Every section's name, sorted (the top-level keys).
std::vector<std::string> top_level_names();

}  // namespace winml::config

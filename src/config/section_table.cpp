#include "config/section_table.h"

#include <algorithm>
#include <stdexcept>

namespace winml::config {

namespace {

template <auto Member, auto Schema>
ConfigSection section(std::string_view name, SectionPlace place) {
  return {name, place, []() -> const SectionSchema& { return *Schema(); },
          [](const ModelSettings& s) { return Schema()->write(s.*Member); },
          [](ModelSettings& s, const json& j) { s.*Member = Schema()->read(j); }};
}

}  // namespace

const std::vector<ConfigSection>& config_sections() {
  static const std::vector<ConfigSection> sections = {
      section<&ModelSettings::build, &build_schema>("build", SectionPlace::kProject),
      section<&ModelSettings::model, &model_schema>("model", SectionPlace::kModel),
      section<&ModelSettings::export_, &export_schema>("export", SectionPlace::kStage),
      section<&ModelSettings::optimize, &optimize_schema>("optimize", SectionPlace::kStage),
      section<&ModelSettings::quantize, &quantize_schema>("quantize", SectionPlace::kStage),
      section<&ModelSettings::compile, &compile_schema>("compile", SectionPlace::kStage),
  };
  return sections;
}

const ConfigSection* find_config_section(std::string_view name) {
  for (const ConfigSection& s : config_sections())
    if (s.name == name) return &s;
  return nullptr;
}

const ConfigSection& config_section(std::string_view name) {
  if (const ConfigSection* s = find_config_section(name)) return *s;
  throw std::logic_error("unknown config section '" + std::string(name) + "'");
}

std::vector<std::string> section_names(SectionPlace place) {
  std::vector<std::string> names;
  for (const ConfigSection& s : config_sections())
    if (s.place == place) names.emplace_back(s.name);
  return names;
}

std::vector<std::string> top_level_names() {
  std::vector<std::string> names;
  for (const ConfigSection& s : config_sections()) names.emplace_back(s.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace winml::config

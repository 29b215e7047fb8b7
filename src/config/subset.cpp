#include "config/subset.h"

#include <stdexcept>

#include "config/section_table.h"

namespace winml::config {

namespace {

json empty_value(const KeyInfo& k) {
  if (k.optional) return nullptr;
  switch (k.type) {
    case ValueType::kBool: return false;
    case ValueType::kInt: return 0;
    case ValueType::kFloat: return 0.0;
    case ValueType::kString: return "";
    case ValueType::kIntTable:
    case ValueType::kStringTable:
    case ValueType::kJson: return json::object();
    default: return json::array();
  }
}

json empty_section(const SectionSchema& s) {
  json out = json::object();
  for (const auto& k : s.keys()) out[k.name] = empty_value(k);
  return out;  // dynamic keys (optimization passes) absent: none set
}

}  // namespace

ModelSettings from_json(const json& c) {
  ModelSettings t;
  for (const ConfigSection& s : config_sections()) s.read(t, c.at(std::string(s.name)));
  return t;
}

ModelSettings only_keys(const ModelSettings& full, const std::vector<std::string>& keys) {
  const json all = to_json(full);
  json kept = json::object();
  for (const auto& [section, values] : all.items()) kept[section] = empty_section(config_section(section).schema());
  for (const auto& key : keys) {
    const auto dot = key.find('.');
    const std::string section = key.substr(0, dot);
    if (!all.contains(section)) throw std::logic_error("unknown config section '" + section + "'");
    if (dot == std::string::npos) {
      kept[section] = all[section];
      continue;
    }
    const std::string name = key.substr(dot + 1);
    if (!all[section].contains(name)) throw std::logic_error("unknown config key '" + key + "'");
    kept[section][name] = all[section][name];
  }
  ModelSettings out = from_json(kept);
  out.base_dir = full.base_dir;  // where the declared paths resolve
  out.config_file = full.config_file;
  return out;
}

}  // namespace winml::config

#include "config/rule_names.h"

#include "base/error.h"
#include "base/rules.h"
#include "base/toml_parse.h"

namespace winml::config {

namespace {

toml::value parse_rule(const std::string& path) {
  const auto& rules = rules::active();
  auto text = rules.read(path);
  if (!text) throw InputError(file_error(rules.origin(path), "missing rules file"));
  try {
    return parse_toml(*text, rules.origin(path));
  } catch (const std::exception& e) {
    throw InputError(file_error(rules.origin(path), std::string("invalid rules file: ") + e.what()));
  }
}

const char* kPresets = "optimize/presets.toml";

}  // namespace

// The keys of a table in presets.toml, sorted.
static std::vector<std::string> preset_table_keys(const char* table) {
  const toml::value presets = parse_rule(kPresets);
  std::vector<std::string> out;
  if (!presets.contains(table)) return out;
  for (const auto& [k, v] : presets.at(table).as_table()) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> optimization_levels() { return preset_table_keys("levels"); }

std::vector<std::string> optimization_pass_names() { return preset_table_keys("passes"); }

std::vector<std::string> optimization_level_passes(const std::string& level) {
  const toml::value presets = parse_rule(kPresets);
  if (!presets.contains("levels") || !presets.at("levels").contains(level)) return {};
  return toml::get<std::vector<std::string>>(presets.at("levels").at(level));
}

}  // namespace winml::config

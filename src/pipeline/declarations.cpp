#include "pipeline/declarations.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "base/instruction_set.h"
#include "base/this_process.h"
#include "config/subset.h"
#include "graph/key.h"
#include "pipeline/code_digest.h"

namespace winml::pipeline {

namespace {
template <typename T>
void append_unique(std::vector<T>& to, const std::vector<T>& from) {
  for (const auto& x : from)
    if (std::find(to.begin(), to.end(), x) == to.end()) to.push_back(x);
}
}  // namespace

void Declarations::merge(const Declarations& other) {
  append_unique(config, other.config);
  append_unique(located, other.located);
  append_unique(files, other.files);
  append_unique(environment, other.environment);
  append_unique(rules, other.rules);
  append_unique(code, other.code);
  for (const auto& [k, v] : other.values) values[k] = v;
  append_unique(plan_files, other.plan_files);
  append_unique(plan_environment, other.plan_environment);
  writes_models = writes_models || other.writes_models;
  if (cannot_run.empty()) cannot_run = other.cannot_run;
}

std::vector<std::string> Declarations::config_keys() const {
  std::vector<std::string> keys = config;
  if (writes_models) keys.push_back("build.external_data_threshold_mib");
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

namespace {

// One ingredient per config key: "config:quantize.samples" = 8.
void add_config(const nlohmann::json& cfg, const std::string& key, std::vector<graph::Ingredient>& out) {
  auto dot = key.find('.');
  const std::string section = key.substr(0, dot);
  if (!cfg.contains(section)) throw std::logic_error("stage declares unknown config section '" + section + "'");
  const nlohmann::json& s = cfg[section];
  if (dot == std::string::npos) {
    for (const auto& [k, v] : s.items()) out.push_back(graph::text_ingredient("config:" + section + "." + k, v.dump()));
    return;
  }
  const std::string name = key.substr(dot + 1);
  if (!s.contains(name)) throw std::logic_error("stage declares unknown config key '" + key + "'");
  out.push_back(graph::text_ingredient("config:" + key, s[name].dump()));
}

}  // namespace

std::vector<graph::Ingredient> key_ingredients(const Declarations& d, const std::string& implementation,
                                               const nlohmann::json& config) {
  std::vector<graph::Ingredient> out;
  out.push_back(graph::text_ingredient("implementation", implementation));
  for (const auto& key : d.config_keys()) add_config(config, key, out);
  std::erase_if(out, [&](const graph::Ingredient& i) {
    return i.name.starts_with("config:") &&
           std::find(d.located.begin(), d.located.end(), i.name.substr(7)) != d.located.end();
  });
  // What a user sets before what the schema computes from it: --explain and
  // reasons name changes in this order (graph/explain.h).
  std::stable_partition(out.begin() + 1, out.end(), [](const graph::Ingredient& i) {
    return !config::computed_from_other_keys(i.name.substr(std::string_view("config:").size()));
  });
  for (const auto& name : d.environment) {
    const auto v = environment_variable(name);
    out.push_back(graph::text_ingredient("env:" + name, v ? nlohmann::json(*v).dump() : "null"));
  }
  for (const auto& path : d.rules) {
    auto text = rules::active().read(path);
    out.push_back(text ? graph::text_ingredient("rules:" + path, *text)
                       : graph::digest_ingredient("rules:" + path, store::digest_of("\0absent"), "(absent)"));
  }
  std::vector<std::string> code = d.code;
  code.push_back("pipeline/stage");
  std::map<std::string, std::string> values = d.values;
  for (const auto& unit : code) {
    const std::string hex = code_digest(unit);
    out.push_back(graph::digest_ingredient("code:" + unit, *store::Digest::from_hex(hex), hex));
    if (computes_with_runtime(unit)) values["runtime.arithmetic"] = arithmetic_identity();
  }
  for (const auto& [name, value] : values) out.push_back(graph::text_ingredient("value:" + name, value));
  return out;
}

DeclaredContext declared_context(const Declarations& d, const config::ModelSettings& full) {
  return {config::to_json(config::only_keys(full, d.config_keys())), d.rules, d.environment, d.writes_models};
}

DeclaredView declared_view(const DeclaredContext& c, const std::filesystem::path& base_dir,
                           const std::filesystem::path& config_file) {
  DeclaredView v{config::from_json(c.config), {}, {}};
  v.config.base_dir = base_dir;  // where the declared paths resolve
  v.config.config_file = config_file;
  std::map<std::string, rules::Rules::File> files;
  for (const auto& path : c.rules) files[path] = rules::active().file(path);
  v.rules = rules::Rules::only(std::move(files));
  for (const auto& name : c.environment)
    if (auto value = environment_variable(name)) v.environment[name] = std::move(*value);
  return v;
}

DeclaredView declared_view(const Declarations& d, const config::ModelSettings& full) {
  return declared_view(declared_context(d, full), full.base_dir, full.config_file);
}

}  // namespace winml::pipeline

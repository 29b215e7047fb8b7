#include "tools/schema_flags.h"

#include <algorithm>

namespace winml::tools {

using config::ValueType;

SchemaFlags::SchemaFlags(CLI::App& app, const config::SectionSchema& schema) : schema_(schema) {
  for (const config::KeyInfo& k : schema.keys()) {
    if (!k.flag) continue;
    Flag& f = flags_.emplace_back();
    f.key = &k;
    const std::string name = "--" + k.flag->name;
    const std::string& help = k.flag->help;
    if (!k.flag->sets.is_null()) {
      f.option = app.add_flag(name, f.on, help);
      continue;
    }
    switch (k.type) {
      case ValueType::kInt: f.option = app.add_option(name, f.integer, help); break;
      case ValueType::kFloat: f.option = app.add_option(name, f.number, help); break;
      case ValueType::kStringList: f.option = app.add_option(name, f.texts, help)->delimiter(','); break;
      case ValueType::kIntList:
      case ValueType::kFloatList:
        f.option = app.add_option(name, f.numbers, help);
        if (k.flag->values > 0) f.option->expected(k.flag->values);
        else f.option->delimiter(',');
        break;
      default: f.option = app.add_option(name, f.text, help); break;
    }
  }
}

config::json SchemaFlags::value_of(const Flag& f) const {
  if (!f.key->flag->sets.is_null()) return f.key->flag->sets;
  switch (f.key->type) {
    case ValueType::kInt: return f.integer;
    case ValueType::kFloat: return f.number;
    case ValueType::kStringList: return f.texts;
    case ValueType::kIntList:
    case ValueType::kFloatList: return f.numbers;
    default: return f.text;
  }
}

bool SchemaFlags::given(const std::string& key) const {
  for (const Flag& f : flags_)
    if (f.key->name == key) return f.option->count() > 0 && (f.key->flag->sets.is_null() || f.on);
  return false;
}

config::json SchemaFlags::section(std::vector<std::string>& errors) const {
  config::json j = config::json::object();
  for (const Flag& f : flags_)
    if (given(f.key->name)) j[f.key->name] = value_of(f);
  schema_.validate(j, schema_.name(), [&](const std::string& path, const std::string& message, config::ErrorAt) {
    errors.push_back(flag_of(path.substr(path.find('.') + 1)) + ": " + message);
  });
  return j;
}

std::string SchemaFlags::flag_of(const std::string& key) const {
  for (const Flag& f : flags_)
    if (f.key->name == key) return "--" + f.key->flag->name;
  std::string flag = key;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return "--" + flag;
}

}  // namespace winml::tools

#include "config/schema.h"

#include <cmath>

#include <algorithm>

#include "base/text.h"

namespace winml::config {

std::string type_name(ValueType t) {
  switch (t) {
    case ValueType::kBool: return "boolean";
    case ValueType::kInt: return "integer";
    case ValueType::kFloat: return "number";
    case ValueType::kString: return "string";
    case ValueType::kStringList: return "array of strings";
    case ValueType::kIntList: return "array of integers";
    case ValueType::kFloatList: return "array of numbers";
    case ValueType::kIntTable: return "table of integers";
    case ValueType::kStringTable: return "table of strings";
    case ValueType::kShape: return "array of integers or dimension names";
    case ValueType::kTableList: return "array of tables";
    case ValueType::kJson: return "table";
  }
  return "value";
}

std::vector<std::string> KeyInfo::allowed() const {
  if (dynamic_choices) return dynamic_choices();
  return choices;
}

const KeyInfo* SectionSchema::find(const std::string& key) const {
  for (const auto& k : keys_)
    if (k.name == key) return &k;
  return nullptr;
}

void SectionSchema::resolve(json& section) const {
  for (const auto& k : keys_)
    if (k.resolve) k.resolve(section);
}

std::vector<std::string> SectionSchema::key_names() const {
  std::vector<std::string> names;
  for (const auto& k : keys_) names.push_back(k.name);
  if (dynamic_bool_keys_)
    for (auto& n : dynamic_bool_keys_()) names.push_back(n);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

std::string with_article(const std::string& noun) {
  return (std::string("aeiou").find(noun[0]) != std::string::npos ? "an " : "a ") + noun;
}

std::string json_kind(const json& v) {
  switch (v.type()) {
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "table";
    case json::value_t::null: return "null";
    default: return "value";
  }
}

bool is_int(const json& v) { return v.is_number_integer(); }

bool all_of(const json& v, bool (*pred)(const json&)) { return v.is_array() && std::all_of(v.begin(), v.end(), pred); }

bool type_matches(const KeyInfo& k, const json& v) {
  if (k.optional && v.is_null()) return true;
  switch (k.type) {
    case ValueType::kBool: return v.is_boolean();
    case ValueType::kInt: return is_int(v);
    case ValueType::kFloat: return v.is_number();
    case ValueType::kString: return v.is_string();
    case ValueType::kStringList: return all_of(v, [](const json& e) { return e.is_string(); });
    case ValueType::kIntList: return all_of(v, [](const json& e) { return e.is_number_integer(); });
    case ValueType::kFloatList: return all_of(v, [](const json& e) { return e.is_number(); });
    case ValueType::kIntTable:
      return v.is_object() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number_integer(); });
    case ValueType::kStringTable:
      return v.is_object() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); });
    case ValueType::kShape: return all_of(v, [](const json& e) { return e.is_number_integer() || e.is_string(); });
    case ValueType::kTableList: return all_of(v, [](const json& e) { return e.is_object(); });
    case ValueType::kJson: return v.is_object();
  }
  return false;
}

}  // namespace

void SectionSchema::validate(const json& object, const std::string& path, const ErrorSink& errors) const {
  const std::string prefix = path.empty() ? "" : path + ".";
  if (!object.is_object()) {
    errors(path, "'" + path + "' must be a table, not " + with_article(json_kind(object)), ErrorAt::kValue);
    return;
  }
  for (const auto& [name, value] : object.items()) {
    const std::string key_path = prefix + name;
    const KeyInfo* k = find(name);
    if (!k) {
      if (dynamic_bool_keys_) {
        auto names = dynamic_bool_keys_();
        if (std::find(names.begin(), names.end(), name) != names.end()) {
          if (!value.is_boolean())
            errors(key_path, "'" + key_path + "' must be a boolean, not " + with_article(json_kind(value)),
                   ErrorAt::kValue);
          continue;
        }
      }
      std::vector<std::string> qualified;
      for (const auto& n : key_names()) qualified.push_back(n);
      std::string hint = nearest_match(name, qualified);
      errors(key_path,
             "unknown key '" + key_path + "'" +
                 (hint.empty() ? " (valid keys: " + join(qualified, ", ") + ")"
                               : " (did you mean '" + prefix + hint + "'?)"),
             ErrorAt::kKey);
      continue;
    }
    if (!type_matches(*k, value)) {
      errors(
          key_path,
          "'" + key_path + "' must be " + with_article(type_name(k->type)) + ", not " + with_article(json_kind(value)),
          ErrorAt::kValue);
      continue;
    }
    if (value.is_null()) continue;
    auto allowed = k->allowed();
    if (!allowed.empty()) {
      auto check = [&](const std::string& s) {
        if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
          errors(
              key_path,
              "'" + key_path + "' is '" + s + "', expected one of: " + join(allowed, ", ") + did_you_mean(s, allowed),
              ErrorAt::kValue);
      };
      if (value.is_string()) check(value.get<std::string>());
      else if (value.is_array())
        for (const auto& e : value) check(e.get<std::string>());
    }
    if (k->min || k->max) {
      // A number, or each number of a list or table (dims, shapes).
      auto check_range = [&](const std::string& where, const json& v) {
        if (!v.is_number()) return;
        const double d = v.get<double>();
        if ((k->min && d < *k->min) || (k->max && d > *k->max)) {
          auto fmt = [](double x) {
            return x == std::floor(x) && std::fabs(x) < 1e15 ? std::to_string(static_cast<long long>(x))
                                                             : json(x).dump();
          };
          errors(key_path,
                 "'" + where + "' is " + v.dump() + ", expected a value in [" + (k->min ? fmt(*k->min) : "-inf") +
                     ", " + (k->max ? fmt(*k->max) : "inf") + "]",
                 ErrorAt::kValue);
        }
      };
      if (value.is_array())
        for (std::size_t i = 0; i < value.size(); ++i) check_range(key_path + "[" + std::to_string(i) + "]", value[i]);
      else if (value.is_object())
        for (const auto& [name, v] : value.items()) check_range(key_path + "." + name, v);
      else check_range(key_path, value);
    }
    if (k->type == ValueType::kTableList && k->element) {
      for (std::size_t i = 0; i < value.size(); ++i)
        k->element->validate(value[i], key_path + "[" + std::to_string(i) + "]", errors);
    }
    if (k->validator) {
      std::string msg = k->validator(value);
      if (!msg.empty()) errors(key_path, "'" + key_path + "' " + msg, ErrorAt::kValue);
    }
  }
}

void SectionSchema::flag(const std::string& key, CommandFlag flag) {
  for (KeyInfo& k : keys_)
    if (k.name == key) {
      k.flag = std::move(flag);
      return;
    }
  throw std::logic_error("no key '" + key + "' in [" + name_ + "] to give a flag");
}

}  // namespace winml::config

// One declaration per config key gives validation (types, choices, ranges,
// unknown-key suggestions), reading into typed structs, the canonical JSON and
// the generated reference documentation, so these can never drift apart.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace winml::config {

using nlohmann::json;

enum class ValueType {
  kBool,
  kInt,
  kFloat,
  kString,
  kStringList,
  kIntList,
  kFloatList,
  kIntTable,     // name -> integer
  kStringTable,  // name -> string
  kShape,        // list of integers and dimension names
  kTableList,    // array of tables with their own schema
  kJson,         // free-form, checked by the key's validator
};

std::string type_name(ValueType t);

class SectionSchema;

// The flag of a single-model command (`winml-make quantize`) that sets a key,
// so that the command and winml.toml share one declaration, its checks and
// its messages: `--NAME VALUE`, or a switch that sets the key to `sets`.
struct CommandFlag {
  std::string name;  // without the leading "--"
  std::string help;  // one line of --help
  json sets;         // a switch's value (true; false for "--no-..."); null: the flag takes the value
  int values = 0;    // a list's values per use (`--value-range LOW HIGH`); 0: comma-separated
};

struct KeyInfo {
  std::string name;
  ValueType type;
  std::string doc;
  std::vector<std::string> choices;                           // allowed strings
  std::function<std::vector<std::string>()> dynamic_choices;  // e.g. EP names from rules/
  std::optional<double> min, max;                             // numeric range
  bool optional = false;                                      // may be unset (null); resolved later from other keys
  std::string default_doc;                       // describes a computed default, when the literal one is not meaningful
  std::shared_ptr<const SectionSchema> element;  // kTableList
  // Extra check for kJson; returns an error message or "".
  std::function<std::string(const json&)> validator;
  json default_value;
  // A valid value other than the default, for keys whose type does not give
  // one (strings without choices, lists, tables). The stage-contract property
  // test builds every key with another value, so every key needs one: booleans
  // flip, numbers step within their range, choices move to the next.
  json alternative;
  // The single-model command's flag for this key, if it has one.
  std::optional<CommandFlag> flag;
  // What winml.toml.example shows, commented out, for an optional key that
  // is not a boolean (booleans show `true`).
  json example;
  // A computed default: sets this key (and, for a shorthand, others) from
  // the rest of the section when it is unset. The one place such a default
  // is computed; project loading, every subcommand and the libraries resolve
  // through SectionSchema::resolve. Run in declaration order.
  std::function<void(json& section)> resolve;

  std::vector<std::string> allowed() const;
};

// What an error points at in the file: the key itself (unknown keys) or its value.
enum class ErrorAt { kKey, kValue };
// Reports problems; `path` is a dotted key path ("quantize.weight_type").
using ErrorSink = std::function<void(const std::string& path, const std::string& message, ErrorAt at)>;

class SectionSchema {
 public:
  SectionSchema(std::string name, std::string doc) : name_(std::move(name)), doc_(std::move(doc)) {}
  virtual ~SectionSchema() = default;

  const std::string& name() const { return name_; }
  const std::string& doc() const { return doc_; }
  const std::vector<KeyInfo>& keys() const { return keys_; }
  const KeyInfo* find(const std::string& key) const;

  // Boolean keys whose names come from data (e.g. optimization pass names).
  const std::function<std::vector<std::string>()>& dynamic_bool_keys() const { return dynamic_bool_keys_; }
  const std::string& dynamic_bool_doc() const { return dynamic_bool_doc_; }

  // Checks an object against the schema; reports every problem to `errors`.
  void validate(const json& object, const std::string& path, const ErrorSink& errors) const;

  // Fills the computed defaults of a section (KeyInfo::resolve).
  void resolve(json& section) const;

  std::vector<std::string> key_names() const;

  // Gives `key` its single-model command flag (KeyInfo::flag).
  void flag(const std::string& key, CommandFlag flag);

 protected:
  std::string name_, doc_;
  std::vector<KeyInfo> keys_;
  std::function<std::vector<std::string>()> dynamic_bool_keys_;
  std::string dynamic_bool_doc_;
};

// Binds keys to members of the struct `S`: defaults come from `S{}`.
template <typename S>
class Section : public SectionSchema {
 public:
  using SectionSchema::SectionSchema;

  template <typename T>
  KeyInfo& key(std::string name, T S::*member, ValueType type, std::string doc) {
    KeyInfo k;
    k.name = name;
    k.type = type;
    k.doc = std::move(doc);
    setters_[name] = [member](S& s, const json& v) { v.get_to(s.*member); };
    getters_[name] = [member](const S& s) { return json(s.*member); };
    k.default_value = json(S{}.*member);
    keys_.push_back(std::move(k));
    return keys_.back();
  }

  // Optional value: unset (null) until resolved.
  template <typename T>
  KeyInfo& optional_key(std::string name, std::optional<T> S::*member, ValueType type, std::string doc) {
    KeyInfo k;
    k.name = name;
    k.type = type;
    k.doc = std::move(doc);
    k.optional = true;
    setters_[name] = [member](S& s, const json& v) {
      if (v.is_null()) (s.*member).reset();
      else s.*member = v.get<T>();
    };
    getters_[name] = [member](const S& s) { return (s.*member) ? json(*(s.*member)) : json(nullptr); };
    k.default_value = nullptr;
    keys_.push_back(std::move(k));
    return keys_.back();
  }

  template <typename E>
  KeyInfo& table_list(std::string name, std::vector<E> S::*member, std::shared_ptr<const Section<E>> element,
                      std::string doc) {
    KeyInfo k;
    k.name = name;
    k.type = ValueType::kTableList;
    k.doc = std::move(doc);
    k.element = element;
    setters_[name] = [member, element](S& s, const json& v) {
      (s.*member).clear();
      for (const auto& item : v) (s.*member).push_back(element->read(item));
    };
    getters_[name] = [member, element](const S& s) {
      json out = json::array();
      for (const auto& e : s.*member) out.push_back(element->write(e));
      return out;
    };
    k.default_value = json::array();
    keys_.push_back(std::move(k));
    return keys_.back();
  }

  void dynamic_bools(std::map<std::string, bool> S::*member, std::function<std::vector<std::string>()> names,
                     std::string doc) {
    dynamic_bool_keys_ = std::move(names);
    dynamic_bool_doc_ = std::move(doc);
    dynamic_member_ = member;
  }

  // Reads a validated object (missing keys keep their defaults).
  S read(const json& object) const {
    S s{};
    for (const auto& [k, v] : object.items()) {
      if (auto it = setters_.find(k); it != setters_.end()) it->second(s, v);
      else if (dynamic_member_) (s.*dynamic_member_)[k] = v.template get<bool>();
    }
    return s;
  }

  // `s` with its computed defaults filled in.
  S resolved(const S& s) const {
    json j = write(s);
    resolve(j);
    return read(j);
  }

  // Every key, sorted (nlohmann objects are ordered maps).
  json write(const S& s) const {
    json out = json::object();
    for (const auto& [k, get] : getters_) out[k] = get(s);
    if (dynamic_member_)
      for (const auto& [k, v] : s.*dynamic_member_) out[k] = v;
    return out;
  }

 private:
  std::map<std::string, std::function<void(S&, const json&)>> setters_;
  std::map<std::string, std::function<json(const S&)>> getters_;
  std::map<std::string, bool> S::*dynamic_member_ = nullptr;
};

}  // namespace winml::config

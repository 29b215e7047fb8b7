// A single-model command's flags made from a config section's schema
// (config::CommandFlag): what the flags given describe is that section,
// checked by the schema like winml.toml, with messages naming the flags.
#pragma once

#include <CLI/CLI.hpp>

#include <deque>
#include <string>
#include <vector>

#include "config/schema.h"

namespace winml::tools {

class SchemaFlags {
 public:
  // Adds a flag to `app` for each key of `schema` that has one, in the
  // schema's order.
  SchemaFlags(CLI::App& app, const config::SectionSchema& schema);

  // The keys the flags given set (others absent), validated by the schema;
  // each problem goes to `errors` as "--flag: message".
  config::json section(std::vector<std::string>& errors) const;
  // Whether the flag of `key` was given.
  bool given(const std::string& key) const;
  // "--op-types" for "op_types_to_quantize"; "--" + the key otherwise.
  std::string flag_of(const std::string& key) const;

 private:
  struct Flag {
    const config::KeyInfo* key = nullptr;
    CLI::Option* option = nullptr;
    bool on = false;
    std::string text;
    std::int64_t integer = 0;
    double number = 0;
    std::vector<std::string> texts;
    std::vector<double> numbers;
  };
  config::json value_of(const Flag& f) const;

  const config::SectionSchema& schema_;
  std::deque<Flag> flags_;  // (stable addresses: CLI11 writes into them)
};

}  // namespace winml::tools

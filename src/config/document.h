// A config file read into a JSON tree, remembering where each key was written
// so that every error can name file:line:column.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace winml::config {

struct Document {
  nlohmann::json root = nlohmann::json::object();
  std::string file;
  struct Location {
    unsigned line = 0, column = 0;
  };
  // Dotted key path ("quantize.input_tensors[0].shape") -> where its value is.
  std::map<std::string, Location> locations;
  std::vector<std::string> lines;  // the file's text, to point at keys rather than values
  // Key paths set on the command line -> the argument ("-D quantize.samples=8"),
  // which messages name instead of a line of the file.
  std::map<std::string, std::string> overridden;

  // "file:line:column" of `key_path` (the key itself where it can be found on
  // the line, else its value), else its closest parent's, else "file".
  std::string where(const std::string& key_path, bool at_key = true) const;
};

// TOML (toml11). Syntax errors throw InputError "file:line:column: ...".
Document load_toml(const std::filesystem::path& path);
// JSON (as written to winml_build_config.json); errors name the file and byte offset.
Document load_json(const std::filesystem::path& path);
// By extension: ".json" is JSON, anything else TOML.
Document load_document(const std::filesystem::path& path);
// The same from the file's text, read by the caller.
Document parse_document(const std::filesystem::path& path, const std::string& text);

}  // namespace winml::config

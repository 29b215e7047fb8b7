// Loading a project: winml.toml (or a replayed winml_build_config.json) into
// validated, resolved per-model settings.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "config/config.h"
#include "config/document.h"

namespace winml::config {

inline constexpr const char* kProjectFile = "winml.toml";

// Reads a config file: its text, or nothing when there is no such file.
using ReadConfigFile = std::function<std::optional<std::string>(const std::filesystem::path&)>;

// Loads `config_file` (default: <project_dir>/winml.toml). Every problem is
// reported at once in an InputError whose first line names file:line:column.
// `read` reads the file (default: from the file system).
ProjectConfig load_project(const std::filesystem::path& project_dir, const std::filesystem::path& config_file = {},
                           const std::vector<std::string>& defines = {},  // -D (overrides.h)
                           const ReadConfigFile& read = {});

// The same from an already-read document (for tests and -c JSON).
ProjectConfig load_project(const Document& doc, const std::filesystem::path& project_dir);

// Replayable canonical JSON of one model (what winml_build_config.json holds).
std::string canonical_json_text(const ModelSettings& settings);

}  // namespace winml::config

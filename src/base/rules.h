// Declarative data the tool ships (rules/: EP operator tables, optimization
// presets, export recipes). The shipped files are compiled into the binary;
// overlay directories (a project's own rules/, $WINML_MAKE_RULES_DIR) can add
// files or replace shipped ones by path.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace winml::rules {

struct EmbeddedFile {
  std::string_view path;  // relative to rules/, e.g. "ep/qnn.toml"
  std::string_view contents;
};

namespace detail {
// Generated at build time from rules/ (embed_rules.cmake).
extern const EmbeddedFile kEmbedded[];
extern const std::size_t kEmbeddedCount;
}  // namespace detail

class Rules {
 public:
  // A file as some Rules serve it: its text (nullopt when absent) and origin.
  struct File {
    std::optional<std::string> text;
    std::string origin;
  };

  // Only the shipped files.
  Rules() = default;
  // Shipped files, then $WINML_MAKE_RULES_DIR, then <project_dir>/rules (last wins).
  static Rules for_project(const std::filesystem::path& project_dir);
  // Exactly `files` (by path): any other path reads as absent and is not listed.
  static Rules only(std::map<std::string, File> files);

  // `path` as these rules serve it.
  File file(std::string_view path) const { return {read(path), origin(path)}; }

  void add_overlay(std::filesystem::path dir) { overlays_.push_back(std::move(dir)); }

  std::optional<std::string> read(std::string_view path) const;
  // Where a file comes from, for error messages: "<shipped>/ep/qnn.toml" or a real path.
  std::string origin(std::string_view path) const;
  // Sorted paths under `dir` (e.g. "ep") ending with `extension` (e.g. ".toml").
  std::vector<std::string> list(std::string_view dir, std::string_view extension) const;

 private:
  std::vector<std::filesystem::path> overlays_;
  std::shared_ptr<const std::map<std::string, File>> only_;  // set: serve these and nothing else
};

// The rules in effect for this process: set once (by the CLI, for the project
// being built) before any config is validated; the shipped rules until then.
// Inside a Scope, the scope's rules on that thread.
const Rules& active();
void set_active(Rules rules);

// While alive, active() on the constructing thread returns `rules` (a stage
// runs inside a scope of the rules files it declared: see pipeline/declarations.h).
class Scope {
 public:
  explicit Scope(Rules rules);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Rules rules_;
  const Rules* previous_;
};

}  // namespace winml::rules

// What every subcommand receives: the global options, resolved.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace winml::cli {

struct Context {
  std::string directory;             // -C: the project directory (default: current directory)
  std::string config;                // -c: config file instead of <project>/winml.toml
  std::string output_dir;            // -o: output directory instead of [build] output_dir
  std::string cache_dir;             // --cache-dir: for the build and the cache command
  std::vector<std::string> defines;  // -D SECTION.KEY=VALUE and the --no-* shorthands, in order

  // Absolute project directory.
  std::filesystem::path project_dir() const;
  // Absolute -c path, or empty. Relative paths are taken from the current
  // directory where winml-make was started (not from -C), like a shell would.
  std::filesystem::path config_file() const;
};

// A subcommand: registered on the app, run when it was parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<int(const Context&)> run;
  // Options registered on a shared app (the build's, on the main app).
  std::vector<const CLI::Option*> own_options = {};
  bool owns(const CLI::Option* o) const {
    return std::find(own_options.begin(), own_options.end(), o) != own_options.end();
  }
};

// Registration functions of the engine's subcommands, one per file; the
// model tools' are in tools/commands.h.
Command add_config_command(CLI::App& app);
Command add_build_command(CLI::App& app);  // the main app: winml-make [MODEL...]
Command add_status_command(CLI::App& app);
Command add_clean_command(CLI::App& app);
Command add_graph_command(CLI::App& app);
Command add_cache_command(CLI::App& app);

// What --version prints: the version, then each code unit's digest.
std::string version_string();

}  // namespace winml::cli

// Shell completion scripts generated from the command line's own definition
// (the CLI11 app), so that they never drift from the options that exist.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace winml::tools {

struct CompletionOption {
  std::vector<std::string> names;  // "--jobs", "-j"
  std::string description;
  bool takes_value = false;
  std::string value_name;  // "INT", "TEXT": what the help shows after the name
};

struct CompletionSubcommand {
  std::string name, description;
  std::vector<CompletionOption> options;  // its own and its subcommands' (cache gc --max-size)
  std::vector<std::string> subcommands;   // cache: stats, verify, gc
  std::vector<std::string> words;         // what may follow it: its subcommands, or its argument's choices (bash zsh fish)
  bool takes_global = false;              // the global options also follow it (CLI11's fall-through)
};

struct CompletionModel {
  std::vector<CompletionOption> global;  // before or after any subcommand
  std::vector<CompletionOption> build;   // the build's own: only without a subcommand
  std::vector<CompletionSubcommand> subcommands;
};

// `build_owns`: whether an option of the root app is the build's own.
CompletionModel completion_model(const CLI::App& root, const std::function<bool(const CLI::Option*)>& build_owns);

// The script for `shell` ("bash", "zsh" or "fish"); throws InputError for
// another shell.
std::string completion_script(const CompletionModel& model, const std::string& shell);

}  // namespace winml::tools

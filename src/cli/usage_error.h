// Usage errors in winml-make's words rather than CLI11's: which command was
// being read, what it got wrong, its choices, and its own --help.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
class ParseError;
}  // namespace CLI

namespace winml::cli {

// "'winml-make cache' needs a command: stats, verify or gc\nRun 'winml-make
// cache --help' for usage." for a failed parse of `root`'s arguments.
std::string usage_error_text(const CLI::App& root, const CLI::ParseError& error);

// The values an option's IsMember check allows (completions: bash, zsh,
// fish), else none.
std::vector<std::string> option_choices(const CLI::Option& option);

}  // namespace winml::cli

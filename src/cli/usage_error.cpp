#include "cli/usage_error.h"

#include <CLI/CLI.hpp>
#include <sstream>

#include "base/text.h"

namespace winml::cli {

namespace {

// The subcommand being read when the parser gave up: the last one named.
const CLI::App& innermost(const CLI::App& root) {
  const CLI::App* at = &root;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().back();
  return *at;
}

// "winml-make cache gc".
std::string command_of(const CLI::App& app) {
  std::string name = app.get_name();
  for (const CLI::App* p = app.get_parent(); p; p = p->get_parent()) name = p->get_name() + " " + name;
  return name;
}

// "stats, verify or gc".
std::string one_of(const std::vector<std::string>& names) {
  if (names.size() < 2) return join(names, "");
  std::vector<std::string> head(names.begin(), names.end() - 1);
  return join(head, ", ") + " or " + names.back();
}

std::string what_is_wrong(const CLI::App& at, const CLI::ParseError& error) {
  const bool required = dynamic_cast<const CLI::RequiredError*>(&error) != nullptr;
  if (required && at.get_require_subcommand_min() > 0 && at.get_subcommands().empty()) {
    std::vector<std::string> subs;
    for (const CLI::App* s : at.get_subcommands({})) subs.push_back(s->get_name());
    return "needs a command: " + one_of(subs);
  }
  if (required)
    for (const CLI::Option* o : at.get_options())
      if (o->get_required() && o->count() == 0) {
        const auto choices = option_choices(*o);
        const bool bare = o->get_lnames().empty() && o->get_snames().empty();  // a positional: "shell"
        const std::string what = bare ? o->get_name(true) : o->get_name(false, true);
        return "needs " + what + (choices.empty() ? "" : ": " + one_of(choices));
      }
  // CLI11 names an ExtrasError after the command, not the class, and lists
  // the extras backwards: they are taken from the parser, in the order given.
  if (dynamic_cast<const CLI::ExtrasError*>(&error)) {
    std::vector<std::string> extra;
    for (const CLI::App* a = &at; a && extra.empty(); a = a->get_parent()) extra = a->remaining();
    if (extra.empty()) {  // "...not expected: d -o" (reversed)
      const std::string what = error.what();
      std::istringstream words(what.substr(what.find(": ") == std::string::npos ? what.size() : what.find(": ") + 2));
      for (std::string w; words >> w;) extra.insert(extra.begin(), w);
    }
    if (!extra.empty())
      return "does not take " + join(extra, " ") +
             (extra.front().starts_with("-") ? " (no such option here)" : " (no such argument here)");
  }
  return error.what();
}

}  // namespace

std::vector<std::string> option_choices(const CLI::Option& option) {
  const std::string type = option.get_type_name();  // "TEXT:{bash,zsh,fish}"
  const auto open = type.find('{'), close = type.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  std::vector<std::string> out;
  const std::string list = type.substr(open + 1, close - open - 1);
  for (std::size_t start = 0; start <= list.size();) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string usage_error_text(const CLI::App& root, const CLI::ParseError& error) {
  const CLI::App& at = innermost(root);
  const std::string command = command_of(at);
  return "'" + command + "' " + what_is_wrong(at, error) + "\nRun '" + command + " --help' for usage.";
}

}  // namespace winml::cli

// winml-make completions bash|zsh|fish: a completion script for the shell,
// generated from the command line's own definition.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "cli/completion_script.h"
#include "cli/context.h"

namespace winml::cli {

Command add_completions_command(CLI::App& app, const Command& build) {
  auto shell = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("completions", "Print a shell completion script (bash, zsh or fish)");
  sub->add_option("shell", *shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  const CLI::App* root = &app;
  const auto build_owns = [own = build.own_options](const CLI::Option* o) {
    return std::find(own.begin(), own.end(), o) != own.end();
  };
  return {sub, [shell, root, build_owns](const Context&) {
            std::cout << completion_script(completion_model(*root, build_owns), *shell);
            return 0;
          }};
}

}  // namespace winml::cli

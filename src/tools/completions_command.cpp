// winml-make completions bash|zsh|fish: a completion script for the shell,
// generated from the command line's own definition.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/context.h"
#include "tools/commands.h"
#include "tools/completion_script.h"

namespace winml::tools {

cli::Command add_completions_command(CLI::App& app, const cli::Command& build) {
  auto shell = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("completions", "Print a shell completion script (bash, zsh or fish)");
  sub->add_option("shell", *shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  const CLI::App* root = &app;
  return {sub, [shell, root, build](const cli::Context&) {
            const auto owns = [&build](const CLI::Option* o) { return build.owns(o); };
            std::cout << completion_script(completion_model(*root, owns), *shell);
            return 0;
          }};
}

}  // namespace winml::tools

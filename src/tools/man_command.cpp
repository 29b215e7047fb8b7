// winml-make man: the manual page, generated from the command line's own
// definition (`winml-make man | man -l -`).
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/context.h"
#include "tools/commands.h"
#include "tools/completion_script.h"
#include "tools/man_page.h"

namespace winml::tools {

cli::Command add_man_command(CLI::App& app, const cli::Command& build) {
  CLI::App* sub = app.add_subcommand("man", "Print the manual page (troff; view it with: winml-make man | man -l -)");
  const CLI::App* root = &app;
  return {sub, [root, build](const cli::Context&) {
            const auto owns = [&build](const CLI::Option* o) { return build.owns(o); };
            std::cout << man_page(completion_model(*root, owns), WINML_VERSION);
            return 0;
          }};
}

}  // namespace winml::tools

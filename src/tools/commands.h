// The model tools' subcommands (cli/command_line.h lists their names for the
// binary's stand-ins), one registration function per file.
#pragma once

#include "cli/context.h"

namespace winml::cli {

Command add_inspect_command(CLI::App& app);
Command add_optimize_command(CLI::App& app);
Command add_analyze_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_quantize_command(CLI::App& app);
Command add_compile_command(CLI::App& app);
Command add_epcontext_command(CLI::App& app);
// After every other (the build's options are not completed after a subcommand).
Command add_completions_command(CLI::App& app, const Command& build);
Command add_man_command(CLI::App& app, const Command& build);

}  // namespace winml::cli

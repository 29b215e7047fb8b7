// The model tools' subcommands (cli/command_line.h lists their names for the
// binary's stand-ins), one registration function per file.
#pragma once

#include "cli/context.h"

namespace winml::tools {

cli::Command add_inspect_command(CLI::App& app);
cli::Command add_optimize_command(CLI::App& app);
cli::Command add_analyze_command(CLI::App& app);
cli::Command add_run_command(CLI::App& app);
cli::Command add_quantize_command(CLI::App& app);
cli::Command add_compile_command(CLI::App& app);
cli::Command add_epcontext_command(CLI::App& app);
cli::Command add_diff_command(CLI::App& app);
cli::Command add_check_command(CLI::App& app);
// After every other (the build's options are not completed after a subcommand).
cli::Command add_completions_command(CLI::App& app, const cli::Command& build);
cli::Command add_man_command(CLI::App& app, const cli::Command& build);

}  // namespace winml::tools

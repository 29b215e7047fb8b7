// The model tools' entry point: what winml-make finds in this module when
// it loads it (cli/tools_module.h).
#include "stages/builtin.h"
#include "stages/stage_runner.h"
#include "stages/stage_worker.h"
#include "base/worker_process.h"
#include "base/rules.h"
#include "cli/command_line.h"
#include "cli/tools_module.h"
#include "cli/tools_stamp.h"
#include "tools/commands.h"

namespace winml::tools {

namespace {

// The whole command line: the engine's commands and the tools'.
int tools_main(int argc, char** argv) {
  cli::CommandLine line;
  line.add_engine_commands();
  for (auto add : {add_inspect_command, add_optimize_command, add_analyze_command, add_run_command,
                   add_quantize_command, add_compile_command, add_epcontext_command, add_diff_command,
                   add_check_command})
    line.add(add(line.app()));
  line.add(add_completions_command(line.app(), line.build()));
  line.add(add_man_command(line.app(), line.build()));
  return line.run(argc, argv);
}

std::unique_ptr<graph::NodeRunner> make_runner(pipeline::BuildSession& session) {
  return std::make_unique<stages::StageRunner>(session);
}

void use_rules(const rules::Rules& r) { rules::set_active(r); }

int serve_worker() { serve_as_worker(&stages::serve_stage_request); }

}  // namespace

}  // namespace winml::tools

extern "C" __attribute__((visibility("default"))) const winml::cli::ToolsModule* winml_make_tools() {
  static const winml::cli::ToolsModule module{
      winml::cli::kToolsStamp,  &winml::tools::tools_main, &winml::stages::register_builtin_stages,
      &winml::tools::make_runner, &winml::tools::use_rules,  &winml::stages::artifact_files,
      &winml::tools::serve_worker};
  return &module;
}

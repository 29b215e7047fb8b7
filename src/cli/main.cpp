// winml-make: incremental builds of ONNX model pipelines. The engine's
// commands run here; the model tools' run in their module, loaded only then
// (cli/tools_module.h).
#include "cli/command_line.h"
#include "base/this_process.h"
#include "base/worker_process.h"
#include "cli/tools_module.h"

int main(int raw_argc, char** raw_argv) {
  using namespace winml::cli;
  winml::prepare_standard_streams();
  winml::Utf8Arguments arguments(raw_argc, raw_argv);
  const int argc = arguments.argc();
  char** argv = arguments.argv();
  if (winml::is_worker_invocation(argc, argv)) return tools_module().serve_worker();  // a build's stage
  CommandLine line;
  line.hand_over([](int n, char** args) { return tools_module().main(n, args); });
  if (names_a_subcommand(argc, argv)) {
    line.add_engine_commands();
    line.add_stand_ins(kToolCommands);
  }
  return line.run(argc, argv);
}

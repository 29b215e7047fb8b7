// winml-make: incremental builds of ONNX model pipelines. The engine's
// commands run here; the model tools' run in their module, loaded only then
// (cli/tools_module.h).
#include "cli/command_line.h"
#include "cli/tools_module.h"

int main(int argc, char** argv) {
  winml::cli::CommandLine line;
  line.add_stand_ins(winml::cli::kToolCommands,
                     [](int n, char** args) { return winml::cli::tools_module().main(n, args); });
  return line.run(argc, argv);
}

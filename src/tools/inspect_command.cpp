// winml-make inspect -m FILE [--json]
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/context.h"
#include "model/inspect.h"
#include "model/model_io.h"
#include "tools/commands.h"

namespace winml::tools {

cli::Command add_inspect_command(CLI::App& app) {
  struct Options {
    std::string model;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub =
      app.add_subcommand("inspect", "Summarize a model: IR, opsets, I/O, ops, weights, sidecars, EPContext");
  sub->add_option("-m,--model", opts->model, "ONNX model file")->required();
  sub->add_flag("--json", opts->json, "Print JSON instead of text");
  return {sub, [opts](const cli::Context&) {
            model::Model m = model::load_model(opts->model);
            auto summary = model::inspect_model(m);
            if (opts->json) std::cout << summary.dump(2) << "\n";
            else std::cout << model::format_inspection(summary);
            return 0;
          }};
}

}  // namespace winml::tools

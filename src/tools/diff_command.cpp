// winml-make diff A.onnx B.onnx [--json]
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/context.h"
#include "model/model_diff.h"
#include "model/model_io.h"
#include "tools/commands.h"

namespace winml::tools {

cli::Command add_diff_command(CLI::App& app) {
  struct Options {
    std::string a, b;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "diff", "Name what differs between two models: I/O, nodes, attributes, initializers, metadata, blobs");
  sub->add_option("a", opts->a, "The first ONNX model")->required();
  sub->add_option("b", opts->b, "The second ONNX model")->required();
  sub->add_flag("--json", opts->json, "Print JSON instead of text");
  return {sub, [opts](const cli::Context&) {
            const model::Model a = model::load_model(opts->a), b = model::load_model(opts->b);
            const auto differences = model::diff_models(a, b);
            if (opts->json) {
              nlohmann::json j = {{"a", opts->a},
                                  {"b", opts->b},
                                  {"same", differences.empty()},
                                  {"differences", model::differences_json(differences)}};
              std::cout << j.dump(2) << "\n";
            } else if (differences.empty()) {
              std::cout << opts->a << " and " << opts->b << " are the same\n";
            } else {
              std::cout << model::format_differences(differences);
            }
            return differences.empty() ? 0 : 1;
          }};
}

}  // namespace winml::tools

// winml-make epcontext --embed|--extern -m IN -o OUT [--json]
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/context.h"
#include "compile/epcontext_convert.h"
#include "tools/commands.h"

namespace winml::tools {

cli::Command add_epcontext_command(CLI::App& app) {
  struct Options {
    std::string input, output;
    bool embed = false, extern_ = false, json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub =
      app.add_subcommand("epcontext", "Convert a compiled model between embedded EPContext blobs and .bin sidecars");
  sub->add_option("-m,--model", opts->input, "Compiled (EPContext) model")->required();
  sub->add_option("-o,--output", opts->output, "Output model (sidecars are written next to it)")->required();
  auto* embed = sub->add_flag("--embed", opts->embed, "Move every blob into its node (embed_mode = 1)");
  auto* ext = sub->add_flag("--extern", opts->extern_, "Move every blob to a .bin sidecar (embed_mode = 0)");
  embed->excludes(ext);
  sub->add_flag("--json", opts->json, "Print what was converted as JSON");
  sub->callback([embed, ext] {
    if (embed->count() + ext->count() != 1) throw CLI::RequiredError("--embed or --extern");
  });
  return {sub, [opts](const cli::Context&) {
            auto metrics = compile::convert_epcontext(opts->input, opts->output, opts->embed);
            if (opts->json) {
              std::cout << metrics.dump(2) << "\n";
            } else {
              for (const auto& n : metrics["nodes"])
                std::cout << "node " << n["node"].get<std::string>() << ": "
                          << (n.contains("file") ? n["file"].get<std::string>() : std::string("embedded")) << " ("
                          << n["bytes"].get<std::uint64_t>() << " bytes)\n";
              std::cout << "wrote " << opts->output << "\n";
            }
            return 0;
          }};
}

}  // namespace winml::tools

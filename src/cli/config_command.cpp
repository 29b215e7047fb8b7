// winml-make config [--example | --reference] [MODEL...]
#include <CLI/CLI.hpp>
#include <iostream>

#include "base/error.h"
#include "base/rules.h"
#include "cli/context.h"
#include "config/project.h"
#include "config/reference.h"
#include "base/path_text.h"

namespace winml::cli {

Command add_config_command(CLI::App& app) {
  struct Options {
    bool example = false, reference = false;
    std::vector<std::string> models;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("config", "Print the resolved configuration of each model as canonical JSON");
  sub->add_flag("--example", opts->example, "Print an annotated winml.toml with every key and its default");
  sub->add_flag("--reference", opts->reference, "Print the configuration reference (Markdown)");
  sub->add_option("models", opts->models, "Models to show (default: all)");
  sub->fallthrough();  // -C/-c after the subcommand too, as for status, clean, graph
  return {sub, [opts](const Context& ctx) {
            if (opts->example) {
              std::cout << config::example_toml();
              return 0;
            }
            if (opts->reference) {
              std::cout << config::reference_markdown();
              return 0;
            }
            auto project = config::load_project(ctx.project_dir(), ctx.config_file(), ctx.defines);
            nlohmann::json out = nlohmann::json::object();
            for (const auto& t : project.models)
              if (opts->models.empty() ||
                  std::find(opts->models.begin(), opts->models.end(), t.model.name) != opts->models.end())
                out[t.model.name] = config::to_json(t);
            for (const auto& name : opts->models)
              if (!out.contains(name))
                throw InputError(to_utf8(project.config_file) + ": no model named '" + name + "'");
            std::cout << out.dump(2) << "\n";
            return 0;
          }};
}

}  // namespace winml::cli

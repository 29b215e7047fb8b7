// winml-make graph [MODEL...] [--svg] [-o DIR]: the build graph in Graphviz
// DOT, each stage labelled with its current status; --svg draws it (dot).
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/build_report.h"
#include "cli/context.h"
#include "cli/project_options.h"
#include "cli/render_dot.h"
#include "cli/tools_module.h"
#include "graph/dot.h"
#include "pipeline/evaluate.h"
#include "pipeline/registry.h"

namespace winml::cli {

Command add_graph_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> models;
    bool svg = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "graph", "Print the build graph in Graphviz DOT (or, with --svg, drawn), with each stage's status");
  sub->add_option("models", opts->models, "Models to show (default: all)");
  sub->add_flag("--svg", opts->svg, "Print the graph drawn as SVG by Graphviz's dot (package graphviz) instead");
  sub->fallthrough();
  return {sub, [opts](const Context& ctx) {
            pipeline::BuildSession session(session_options(ctx, /*write=*/false, nullptr), tool_stages());
            session.open();
            auto selected = select_models(session, opts->models);
            graph::Graph g = session.plan().graph;
            ToolRunner runner(session);
            auto results = pipeline::evaluate(session, selected, /*explain=*/false, runner);
            if (!selected.is_every_model()) {
              // Keep only the selected models (indices shift: rebuild deps).
              graph::Graph sub;
              std::vector<std::size_t> index(g.nodes.size(), graph::npos);
              std::vector<graph::NodeResult> kept;
              for (const auto& t : g.models)
                if (selected.contains(t)) sub.models.push_back(t);
              for (std::size_t i = 0; i < g.nodes.size(); ++i) {
                if (!selected.contains(g.nodes[i].model)) continue;
                graph::Node n = g.nodes[i];
                for (auto& d : n.deps) d = index[d];
                index[i] = sub.nodes.size();
                sub.nodes.push_back(std::move(n));
                kept.push_back(results[i]);
              }
              g = std::move(sub);
              results = std::move(kept);
            }
            const std::string dot = graph::to_dot(g, [&](std::size_t i) {
              const auto& r = results[i];
              if (!g.nodes[i].enabled) return std::string();
              return status_text(r.status, /*dry_run=*/true);
            });
            std::cout << (opts->svg ? render_svg(dot) : dot);
            return 0;
          }};
}

}  // namespace winml::cli

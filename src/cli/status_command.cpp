// winml-make status [TARGET...] [-o DIR] [--json]: each model × stage, up to
// date or stale and why. Reads only; never waits for a running build.
#include <CLI/CLI.hpp>
#include <iostream>

#include "base/text.h"
#include "cli/build_report.h"
#include "cli/context.h"
#include "cli/project_options.h"
#include "stages/registry.h"
#include "stages/stage_runner.h"

namespace winml::cli {

Command add_status_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> targets;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("status", "Show, for each model and stage, whether it is up to date or why not");
  sub->add_option("targets", opts->targets, "Models to show (default: all)");
  sub->add_flag("--json", opts->json, "Machine-readable output");
  sub->fallthrough();
  return {sub, [opts](const Context& ctx) {
            stages::Session session(session_options(ctx, /*write=*/false, nullptr),
                                    stages::builtin_stages());
            session.open();
            const auto& plan = session.plan();
            graph::BuildOptions o;
            o.targets = select_targets(session, opts->targets);
            o.dry_run = true;
            o.explain = true;
            stages::StageRunner runner(session);
            graph::Builder builder(plan.graph,
                                   {session.options().source.project_dir, plan.output_dir, session.state_dir()},
                                   session.state(), session.ingredients(), runner);
            auto results = builder.build(o);
            if (opts->json) {
              std::cout << run_report(plan.graph, results, "ok", true, 0, plan.output_dir.string()).dump(2) << "\n";
              return 0;
            }
            std::size_t stale = 0;
            const auto by_target = plan.graph.nodes_by_target();
            for (std::size_t ti = 0; ti < plan.graph.targets.size(); ++ti) {
              const std::string& t = plan.graph.targets[ti];
              if (!o.targets.empty() && !o.targets.count(t)) continue;
              std::cout << t << "  (" << (plan.output_dir / t).string() << ")\n";
              for (std::size_t i : by_target[ti]) {
                const auto& n = plan.graph.nodes[i];
                const auto& r = results[i];
                std::string what;
                switch (r.status) {
                  case graph::Status::kUpToDate: what = "up to date"; break;
                  case graph::Status::kSkipped: what = "skipped: " + r.reason; break;
                  case graph::Status::kFailed: what = "error: " + r.reason; break;
                  default: what = "stale: " + r.reason; ++stale;
                }
                std::string name = n.name;
                name.resize(10, ' ');
                std::cout << "  " << name << what << "\n";
                for (const auto& e : r.explanation)
                  if (e != r.reason) std::cout << "            " << e << "\n";
              }
            }
            std::cout << (stale ? std::to_string(stale) + " stale stage(s); run winml-make to rebuild them\n"
                                : "everything is up to date\n");
            return 0;
          }};
}

}  // namespace winml::cli

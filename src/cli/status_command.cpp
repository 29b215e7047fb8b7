// winml-make status [TARGET...] [-o DIR] [--json]: each model × stage, up to
// date or stale and why. Reads only; never waits for a running build.
#include <CLI/CLI.hpp>
#include <iostream>

#include "base/text.h"
#include "cli/build_report.h"
#include "cli/context.h"
#include "cli/project_options.h"
#include "cli/tools_module.h"
#include "pipeline/dead_models.h"
#include "pipeline/registry.h"
#include "base/path_text.h"

namespace winml::cli {

namespace {

// The last line: what the stages add up to, and the one thing to do next.
std::string status_summary(std::map<graph::Status, std::size_t>& counts, const std::string& first_failure,
                           std::size_t stale_reports, bool dead_models) {
  using S = graph::Status;
  if (counts[S::kFailed]) {
    // Building now would only fail again: the error comes first.
    std::string text = count_of(counts[S::kFailed], "stage", "stages") + " would fail (" + first_failure + ")";
    if (counts[S::kNotRun]) text += ", " + count_of(counts[S::kNotRun], "stage cannot", "stages cannot") + " run before it";
    if (counts[S::kStale]) text += ", " + count_of(counts[S::kStale], "stage", "stages") + " would run";
    return text + "; fix the error, then run winml-make";
  }
  if (counts[S::kStale])
    return count_of(counts[S::kStale], "stage", "stages") + " would run; run winml-make to rebuild " +
           (counts[S::kStale] == 1 ? "it" : "them");
  if (stale_reports) return "stale reports; run winml-make to rewrite them";
  return dead_models ? "every configured model is up to date" : "everything is up to date";
}

}  // namespace

Command add_status_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> models;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("status", "Show, for each model and stage, whether it is up to date or why not");
  sub->add_option("models", opts->models, "Models to show (default: all)");
  sub->add_flag("--json", opts->json, "Machine-readable output");
  sub->fallthrough();
  return {sub, [opts](const Context& ctx) {
            pipeline::BuildSession session(session_options(ctx, /*write=*/false, nullptr), tool_stages());
            session.open();
            const auto& plan = session.plan();
            graph::BuildOptions o;
            o.models = select_models(session, opts->models);
            o.dry_run = true;
            o.explain = true;
            // Each model's own state: a failure in one stops nothing else.
            o.keep_going = true;
            ToolRunner runner(session);
            graph::Builder builder(plan.graph,
                                   {session.options().source.project_dir, plan.output_dir, session.state_dir()},
                                   session.state(), session.ingredients(), runner);
            auto results = builder.build(o);
            // Whether each model's reports describe its stage records; the
            // text shows it only where every stage is up to date (a build
            // rewrites the reports of a model it runs anything for).
            std::map<std::string, bool> reports;
            const auto by_model = plan.graph.nodes_by_model();
            for (std::size_t ti = 0; ti < plan.graph.models.size(); ++ti)
              if (o.models.empty() || o.models.count(plan.graph.models[ti]))
                reports[plan.graph.models[ti]] = session.reports_current(ti, by_model[ti]);
            // Models no longer configured: only when every model is shown.
            const auto dead = o.models.empty() ? pipeline::dead_models(session) : std::vector<pipeline::DeadModel>{};
            if (opts->json) {
              auto report = run_report(plan.graph, results, "ok", true, 0, to_utf8(plan.output_dir));
              for (auto& t : report["models"])
                t["reports"] = reports[t["name"].get<std::string>()] ? "up-to-date" : "stale";
              report["dead"] = nlohmann::json::array();
              for (const auto& m : dead)
                report["dead"].push_back({{"model", m.name},
                                          {"dir", to_utf8(m.dir)},
                                          {"recorded", m.recorded},
                                          {"files", m.files},
                                          {"bytes", m.bytes}});
              std::cout << report.dump(2) << "\n";
              return 0;
            }
            std::map<graph::Status, std::size_t> counts;
            std::size_t stale_reports = 0;
            std::string first_failure;  // "model/stage: first line of its reason"
            for (std::size_t ti = 0; ti < plan.graph.models.size(); ++ti) {
              const std::string& t = plan.graph.models[ti];
              if (!o.models.empty() && !o.models.count(t)) continue;
              std::cout << t << "  (" << to_utf8((plan.output_dir / t)) << ")\n";
              for (std::size_t i : by_model[ti]) {
                const auto& n = plan.graph.nodes[i];
                const auto& r = results[i];
                ++counts[r.status];
                if (r.status == graph::Status::kFailed && first_failure.empty())
                  first_failure = n.id() + ": " + r.reason.substr(0, r.reason.find('\n'));
                std::string name = n.name;
                name.resize(10, ' ');
                std::cout << "  " << name << status_text(r.status, /*dry_run=*/true)
                          << (r.reason.empty() ? "" : ": " + r.reason) << "\n";
                for (const auto& e : r.explanation)
                  if (e != r.reason) std::cout << "            " << e << "\n";
              }
              bool stages_current = true;
              for (std::size_t i : by_model[ti])
                if (results[i].status != graph::Status::kUpToDate && results[i].status != graph::Status::kSkipped)
                  stages_current = false;
              if (stages_current && !reports[t]) {
                std::cout << "  reports   stale: build_manifest.json and winml_build_config.json do not describe "
                             "the artifacts (a build rewrites them)\n";
                ++stale_reports;
              }
            }
            for (const auto& m : dead) {
              std::cout << m.name << "  (" << to_utf8(m.dir) << ")\n  not configured in winml.toml any more: ";
              if (m.recorded)
                std::cout << m.files << " file" << (m.files == 1 ? "" : "s") << " (" << human_bytes(m.bytes)
                          << ") written for it; winml-make clean --dead removes them\n";
              else std::cout << "no build records for it, so winml-make will not delete anything there\n";
            }
            std::cout << status_summary(counts, first_failure, stale_reports, !dead.empty()) << "\n";
            if (!dead.empty())
              std::cout << dead.size() << (dead.size() == 1 ? " folder" : " folders")
                        << " of models no longer configured (listed above)\n";
            return 0;
          }};
}

}  // namespace winml::cli

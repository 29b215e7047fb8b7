// winml-make status [MODEL...] [-o DIR] [--json]: each model × stage, up to
// date or stale and why. Reads only; never waits for a running build.
#include <CLI/CLI.hpp>
#include <iostream>
#include <set>

#include "base/path_text.h"
#include "base/text.h"
#include "cli/build_report.h"
#include "cli/context.h"
#include "cli/project_options.h"
#include "cli/tools_module.h"
#include "pipeline/dead_models.h"
#include "pipeline/evaluate.h"
#include "pipeline/registry.h"

namespace winml::cli {

namespace {

// The last line: what the stages add up to, and the one thing to do next.
std::string status_summary(std::map<graph::Status, std::size_t>& counts, const std::string& first_failure,
                           std::size_t stale_reports, bool dead_models) {
  using S = graph::Status;
  if (counts[S::kFailed]) {
    // Building now would only fail again: the error comes first.
    std::string text = count_of(counts[S::kFailed], "stage", "stages") + " would fail (" + first_failure + ")";
    if (counts[S::kNotRun])
      text += ", " + count_of(counts[S::kNotRun], "stage cannot", "stages cannot") + " run before it";
    if (counts[S::kStale]) text += ", " + count_of(counts[S::kStale], "stage", "stages") + " would run";
    return text + "; fix the error, then run winml-make";
  }
  if (counts[S::kStale])
    return count_of(counts[S::kStale], "stage", "stages") + " would run; run winml-make to rebuild " +
           (counts[S::kStale] == 1 ? "it" : "them");
  if (stale_reports) return "stale reports; run winml-make to rewrite them";
  return dead_models ? "every configured model is up to date" : "everything is up to date";
}

// What status shows: the plan's verdict for each selected node, whether each
// model's reports describe its stage records, and the models no longer
// configured (only when every model is shown).
struct StatusView {
  const pipeline::BuildPlan& plan;
  graph::ModelSelection models;
  std::vector<graph::NodeResult> results;
  std::map<std::string, bool> reports;
  std::vector<pipeline::DeadModel> dead;

  bool shown(const std::string& model) const { return models.contains(model); }
  bool reports_current(const std::string& model) const {
    auto it = reports.find(model);
    return it != reports.end() && it->second;
  }
};

StatusView evaluate_status(pipeline::BuildSession& session, const std::vector<std::string>& names) {
  StatusView v{.plan = session.plan(), .models = select_models(session, names)};
  ToolRunner runner(session);
  v.results = pipeline::evaluate(session, v.models, /*explain=*/true, runner);
  // Whether each model's reports describe its stage records; the text shows
  // it only where every stage is up to date (a build rewrites the reports
  // of a model it runs anything for).
  const auto by_model = v.plan.graph.nodes_by_model();
  for (std::size_t mi = 0; mi < v.plan.graph.models.size(); ++mi)
    if (v.shown(v.plan.graph.models[mi]))
      v.reports[v.plan.graph.models[mi]] = session.reports_current(mi, by_model[mi]);
  if (v.models.is_every_model()) v.dead = pipeline::dead_models(session);
  return v;
}

void print_status_json(const StatusView& v) {
  auto report = run_report(v.plan.graph, v.results, "ok", true, 0, to_utf8(v.plan.output_dir));
  for (auto& t : report["models"])
    t["reports"] = v.reports_current(t["name"].get<std::string>()) ? "up-to-date" : "stale";
  report["dead"] = nlohmann::json::array();
  for (const auto& m : v.dead)
    report["dead"].push_back(
        {{"model", m.name}, {"dir", to_utf8(m.dir)}, {"recorded", m.recorded}, {"files", m.files}, {"bytes", m.bytes}});
  std::cout << report.dump(2) << "\n";
}

// What the text adds up, for its last line.
struct StatusCounts {
  std::map<graph::Status, std::size_t> stages;
  std::size_t stale_reports = 0;
  std::string first_failure;  // "model/stage: first line of its reason"
};

// One model's stages, a line each with its explanation, then its reports' state.
void print_model_status(const StatusView& v, const std::string& model, const std::vector<std::size_t>& nodes,
                        StatusCounts& counts) {
  std::cout << model << "  (" << to_utf8((v.plan.output_dir / model)) << ")\n";
  bool stages_current = true;
  for (std::size_t i : nodes) {
    const auto& n = v.plan.graph.nodes[i];
    const auto& r = v.results[i];
    ++counts.stages[r.status];
    if (r.status == graph::Status::kFailed && counts.first_failure.empty())
      counts.first_failure = n.id() + ": " + r.reason.substr(0, r.reason.find('\n'));
    if (r.status != graph::Status::kUpToDate && r.status != graph::Status::kDisabled) stages_current = false;
    std::string name = n.name;
    name.resize(10, ' ');
    std::cout << "  " << name << status_text(r.status, /*dry_run=*/true) << (r.reason.empty() ? "" : ": " + r.reason)
              << "\n";
    for (const auto& e : r.explanation)
      if (e != r.reason) std::cout << "            " << e << "\n";
  }
  if (stages_current && !v.reports_current(model)) {
    std::cout << "  reports   stale: build_manifest.json and winml_build_config.json do not describe "
                 "the artifacts (a build rewrites them)\n";
    ++counts.stale_reports;
  }
}

void print_dead_model(const pipeline::DeadModel& m) {
  std::cout << m.name << "  (" << to_utf8(m.dir) << ")\n  not configured in winml.toml any more: ";
  if (m.recorded)
    std::cout << m.files << " file" << (m.files == 1 ? "" : "s") << " (" << human_bytes(m.bytes)
              << ") written for it; winml-make clean --dead removes them\n";
  else std::cout << "no build records for it, so winml-make will not delete anything there\n";
}

void print_status_text(const StatusView& v) {
  StatusCounts counts;
  const auto by_model = v.plan.graph.nodes_by_model();
  for (std::size_t mi = 0; mi < v.plan.graph.models.size(); ++mi)
    if (v.shown(v.plan.graph.models[mi])) print_model_status(v, v.plan.graph.models[mi], by_model[mi], counts);
  for (const auto& m : v.dead) print_dead_model(m);
  std::cout << status_summary(counts.stages, counts.first_failure, counts.stale_reports, !v.dead.empty()) << "\n";
  if (!v.dead.empty())
    std::cout << v.dead.size() << (v.dead.size() == 1 ? " folder" : " folders")
              << " of models no longer configured (listed above)\n";
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
            const StatusView view = evaluate_status(session, opts->models);
            if (opts->json) print_status_json(view);
            else print_status_text(view);
            return 0;
          }};
}

}  // namespace winml::cli

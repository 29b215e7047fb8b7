#include "pipeline/evaluate.h"

namespace winml::pipeline {

std::vector<graph::NodeResult> evaluate(BuildSession& session, const graph::ModelSelection& models, bool explain,
                                        graph::NodeRunner& runner) {
  const BuildPlan& plan = session.plan();
  graph::Builder builder(plan.graph, {session.options().source.project_dir, plan.output_dir, session.state_dir()},
                         session.state(), session.ingredients(), runner);
  return builder.build({.keep_going = true, .dry_run = true, .explain = explain, .models = models});
}

}  // namespace winml::pipeline

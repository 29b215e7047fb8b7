#include "stages/stage_runner.h"

#include "base/error.h"
#include "base/rules.h"
#include "model/sidecars.h"

namespace winml::stages {

graph::RunResult StageRunner::run(const graph::RunRequest& req) {
  auto stage = stage_for(req.node, session_.registry());
  if (!stage) throw BuildError(req.node.id() + ": no implementation registered for '" + req.node.kind + "'");
  // The stage sees what it declared and nothing else (pipeline/declarations.h).
  const pipeline::Declarations declared = stage->declare(session_.model_settings(req.node.model));
  const pipeline::DeclaredView view = pipeline::declared_view(declared, session_.model_settings(req.node.model));
  rules::Scope rules_scope(view.rules);
  pipeline::StageContext ctx{view.config,
                   req.project_dir,
                   session_.options().source.config_file.string(),
                   {},
                   {},
                   req.staging_dir / req.node.primary_output,
                   req.extra_inputs,
                   view.environment,
                   declared.writes_models,
                   req.cancel,
                   req.log_file};
  if (!req.inputs.empty()) {
    ctx.input = req.inputs.front().primary;
    ctx.input_files = req.inputs.front().files;
  }
  pipeline::StageResult r = stage->run(ctx);
  return {r.metrics.dump()};
}

std::vector<std::string> StageRunner::model_files(const fs::path& model) {
  std::vector<std::string> names;
  for (const auto& f : model::model_files(model).all())
    names.push_back(f.lexically_relative(model.parent_path()).generic_string());
  return names;
}

std::vector<std::string> artifact_files(const fs::path& primary) {
  if (primary.extension() != ".onnx") return {primary.filename().string()};
  std::vector<std::string> names;
  for (const auto& f : model::model_files(primary).all())
    names.push_back(f.lexically_relative(primary.parent_path()).generic_string());
  return names;
}

}  // namespace winml::stages

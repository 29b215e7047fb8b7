#include "stages/export_stages.h"
#include "stages/save_options.h"

#include "base/error.h"
#include "export/export_plan.h"
#include "model/epcontext.h"
#include "model/model_io.h"
#include "model/sidecars.h"

namespace winml::stages {

namespace fs = std::filesystem;

// --- import -----------------------------------------------------------------

pipeline::Declarations ImportStage::declare(const config::ModelSettings& config) const {
  pipeline::Declarations d;
  d.config = {"model.source"};
  d.files = {{graph::InputKind::kModel, config.model.source}};
  d.code = {"winml_model", "stages/export_stages"};
  d.writes_models = true;
  return d;
}

pipeline::StageResult ImportStage::run(const pipeline::StageContext& ctx) {
  const fs::path source = ctx.project_path(ctx.config.model.source);
  model::Model m = model::load_model(source);
  pipeline::StageResult r;
  if (!model::resolve_context_files(m.proto, source).empty()) {
    // A compiled (EPContext) model keeps its blobs; copy_model renames them.
    model::copy_model(source, ctx.output);
    r.metrics["copied_epcontext_blobs"] = true;
  } else {
    model::save_model(m, ctx.output, save_options(ctx));
  }
  r.metrics["source"] = ctx.config.model.source;
  return r;
}

// --- export (command or torchvision recipe) ----------------------------------

pipeline::Declarations ExportStage::declare(const config::ModelSettings& config) const {
  pipeline::Declarations d;
  // model.source chooses between importing it and exporting (empty here): a
  // switch explains as "model.source changed", not as a dozen new keys.
  d.config = {"export", "model.source"};
  // Patterns are resolved by the engine on every build, so a file added later
  // that matches one enters the key.
  for (const auto& p : config.export_.inputs) d.files.push_back({graph::InputKind::kGlob, p});
  if (!config.export_.torchvision.empty()) {
    if (!config.export_.weights.empty()) d.files.push_back({graph::InputKind::kFile, config.export_.weights});
    d.rules = {exporting::kTorchvisionRecipe};
  }
  d.environment = config.export_.env;
  d.code = {"winml_export", "stages/export_stages"};
  d.writes_models = true;
  return d;
}

pipeline::StageResult ExportStage::run(const pipeline::StageContext& ctx) {
  exporting::ExportPlan plan =
      exporting::plan_export(ctx.config.export_, ctx.project_dir, ctx.config_file, ctx.environment);
  exporting::run_export(plan, ctx.project_dir, ctx.output, ctx.log_file, save_options(ctx), ctx.cancel);
  pipeline::StageResult r;
  if (!ctx.config.export_.torchvision.empty()) r.metrics["torchvision"] = ctx.config.export_.torchvision;
  else r.metrics["command"] = ctx.config.export_.command;
  return r;
}

}  // namespace winml::stages

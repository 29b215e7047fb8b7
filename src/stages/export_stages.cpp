#include "stages/export_stages.h"
#include "stages/save_options.h"

#include "base/error.h"
#include "base/path_text.h"
#include "base/text.h"
#include "config/torchvision_weights.h"
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

namespace {

// [export] weights naming torchvision's pretrained weights: the checkpoint
// torchvision loads is found now, when the plan is made, so that a missing
// one stops a build before any stage runs (Declarations::cannot_run:
// InputError, exit 2), naming the file, its URL and where to put it. Its
// content enters the key as a declared file named for what it is,
// "$TORCH_HOME/hub/checkpoints/<file>", not where this machine keeps it (so
// clones elsewhere share results), the last of Declarations::files
// (ExportStage::run finds it there). The variables that locate it are the
// plan's: it is made again when one of them changes, or when the file
// appears, goes or changes.
void declare_pretrained_weights(const config::ModelSettings& config, pipeline::Declarations& d) {
  const config::ExportConfig& e = config.export_;
  d.rules.push_back(config::kTorchvisionWeightsRules);
  d.plan_environment = exporting::torch_checkpoints_variables();
  std::string problem;
  const auto weights = config::find_pretrained_weights(e.torchvision, e.weights, &problem);
  const std::string config_file = config.config_file.empty() ? "the configuration" : to_utf8(config.config_file);
  if (!weights) {
    // (load_project refuses these; a configuration made otherwise lands here.)
    d.cannot_run = file_error(config_file, "'export.weights' is '" + e.weights + "': " + problem);
    return;
  }
  const fs::path dir = exporting::torch_checkpoints_dir();
  if (dir.empty()) {
    d.cannot_run = file_error(config_file, "[export] weights = \"" + e.weights + "\" loads torchvision's checkpoint " +
                                               weights->file + " from $TORCH_HOME/hub/checkpoints/, but " +
                                               join(exporting::torch_checkpoints_variables(), ", ") +
                                               " are all unset: set TORCH_HOME");
    return;
  }
  const fs::path checkpoint = dir / from_utf8(weights->file);
  d.plan_files.push_back(to_utf8(checkpoint));
  if (!fs::is_regular_file(checkpoint)) {
    const auto set_at = config.set_by.find("export.weights");
    d.cannot_run = exporting::missing_checkpoint_message(
        *weights, checkpoint, e.weights, set_at != config.set_by.end() ? set_at->second : config_file);
    return;
  }
  d.files.push_back({graph::InputKind::kFile, to_utf8(checkpoint), "$TORCH_HOME/hub/checkpoints/" + weights->file});
}

}  // namespace

pipeline::Declarations ExportStage::declare(const config::ModelSettings& config) const {
  pipeline::Declarations d;
  // model.source chooses between importing it and exporting (empty here): a
  // switch explains as "model.source changed", not as a dozen new keys.
  d.config = {"export", "model.source"};
  // Patterns are resolved by the engine on every build, so a file added later
  // that matches one enters the key.
  for (const auto& p : config.export_.inputs) d.files.push_back({graph::InputKind::kGlob, p});
  if (!config.export_.torchvision.empty()) {
    d.rules = {exporting::kTorchvisionRecipe};
    if (config::names_pretrained_weights(config.export_.weights)) declare_pretrained_weights(config, d);
    else if (!config.export_.weights.empty()) d.files.push_back({graph::InputKind::kFile, config.export_.weights});
  }
  d.environment = config.export_.env;
  d.code = {"winml_export", "stages/export_stages"};
  d.writes_models = true;
  return d;
}

pipeline::StageResult ExportStage::run(const pipeline::StageContext& ctx) {
  const config::ExportConfig& e = ctx.config.export_;
  const bool pretrained = !e.torchvision.empty() && config::names_pretrained_weights(e.weights);
  // The checkpoint declare_pretrained_weights declared last.
  const fs::path checkpoint = pretrained && !ctx.files.empty() ? ctx.files.back() : fs::path();
  exporting::ExportPlan plan =
      exporting::plan_export(e, ctx.project_dir, ctx.config_file, ctx.environment, checkpoint);
  exporting::run_export(plan, ctx.project_dir, ctx.output, ctx.log_file, save_options(ctx), ctx.cancel);
  pipeline::StageResult r;
  if (!e.torchvision.empty()) r.metrics["torchvision"] = e.torchvision;
  else r.metrics["command"] = e.command;
  if (pretrained)
    if (auto weights = config::find_pretrained_weights(e.torchvision, e.weights))
      r.metrics["pretrained_weights"] = weights->name;
  return r;
}

}  // namespace winml::stages

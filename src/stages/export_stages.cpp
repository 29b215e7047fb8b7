#include "stages/export_stages.h"

#include "base/error.h"
#include "base/rules.h"
#include "export/export_plan.h"
#include "model/epcontext.h"
#include "model/model_io.h"
#include "model/sidecars.h"

namespace winml::stages {

// --- import -----------------------------------------------------------------

std::vector<graph::InputDecl> ImportStage::extra_inputs(const config::TargetConfig& config) const {
  return {{graph::InputKind::kModel, config.model.source}};
}

StageResult ImportStage::run(const StageContext& ctx) {
  const fs::path source = ctx.project_path(ctx.config.model.source);
  model::Model m = model::load_model(source);
  StageResult r;
  if (!model::resolve_context_files(m.proto, source).empty()) {
    // A compiled (EPContext) model keeps its blobs; copy_model renames them.
    model::copy_model(source, ctx.output);
    r.metrics["copied_epcontext_blobs"] = true;
  } else {
    model::save_model(m, ctx.output, ctx.save_options());
  }
  r.metrics["source"] = ctx.config.model.source;
  return r;
}

// --- export (command or torchvision recipe) ----------------------------------

std::vector<graph::InputDecl> ExportStage::extra_inputs(const config::TargetConfig& config) const {
  std::vector<graph::InputDecl> out;
  // Patterns are resolved by the engine on every build, so a file added later
  // that matches one enters the key.
  for (const auto& p : config.export_.inputs) out.push_back({graph::InputKind::kGlob, p});
  if (!config.export_.torchvision.empty() && !config.export_.weights.empty())
    out.push_back({graph::InputKind::kFile, config.export_.weights});
  return out;
}

std::vector<std::string> ExportStage::environment(const config::TargetConfig& config) const {
  return config.export_.env;
}

std::map<std::string, std::string> ExportStage::key_values(const config::TargetConfig& config) const {
  if (config.export_.torchvision.empty()) return {};
  auto text = rules::active().read("export/torchvision_export.py");
  return {{"recipe", text ? *text : ""}};
}

StageResult ExportStage::run(const StageContext& ctx) {
  exporting::ExportPlan plan = exporting::plan_export(ctx.config.export_, ctx.project_dir, ctx.config_file);
  exporting::run_export(plan, ctx.project_dir, ctx.output, ctx.log_file, ctx.save_options());
  StageResult r;
  if (!ctx.config.export_.torchvision.empty()) r.metrics["torchvision"] = ctx.config.export_.torchvision;
  else r.metrics["command"] = ctx.config.export_.command;
  return r;
}

}  // namespace winml::stages

#include "stages/quantize_stage.h"

#include "model/model_io.h"
#include "quant/quantize.h"

namespace winml::stages {

std::vector<graph::InputDecl> QuantizeStage::extra_inputs(const config::TargetConfig& config) const {
  if (config.quantize.calibration_data.empty()) return {};
  return {{graph::InputKind::kTree, config.quantize.calibration_data}};
}

std::map<std::string, std::string> QuantizeStage::key_values(const config::TargetConfig& config) const {
  return {{"quantizer", quant::kQuantizeVersion}, rules_key_value("ep/" + config.compile.ep + ".toml")};
}

StageResult QuantizeStage::run(const StageContext& ctx) {
  model::Model in = model::load_model(ctx.input);
  quant::QuantizeContext q;
  q.ep = ctx.config.compile.ep;
  q.dims = ctx.config.model.dims;
  q.base_dir = ctx.project_dir;
  q.model_path = ctx.input.filename().string();
  q.log = ctx.start_log();
  quant::QuantizeResult result = quant::quantize_model(in, ctx.config.quantize, q);
  ctx.check_cancel();
  model::save_model(result.model, ctx.output, ctx.save_options());
  StageResult r;
  r.metrics = std::move(result.report);
  return r;
}

}  // namespace winml::stages

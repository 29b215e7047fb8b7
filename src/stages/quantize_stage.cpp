#include "stages/quantize_stage.h"

#include "model/model_io.h"
#include "quant/quantize.h"

namespace winml::stages {

Declarations QuantizeStage::declare(const config::TargetConfig& config) const {
  Declarations d;
  d.config = {"quantize", "compile.ep", "model.dims"};
  if (!config.quantize.calibration_data.empty())
    d.files = {{graph::InputKind::kTree, config.quantize.calibration_data}};
  d.rules = {"ep/" + config.compile.ep + ".toml"};
  d.code = {"winml_quant", "stages/quantize_stage"};
  d.writes_models = true;
  return d;
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

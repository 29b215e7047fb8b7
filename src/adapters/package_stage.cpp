#include "adapters/package_stage.h"

#include "model/sidecars.h"

namespace winml::stages {

Declarations PackageStage::declare(const config::TargetConfig&) const {
  Declarations d;
  d.code = {"winml_model", "adapters/package_stage"};
  return d;
}

StageResult PackageStage::run(const StageContext& ctx) {
  model::copy_model(ctx.input, ctx.output);
  StageResult r;
  r.metrics["source"] = ctx.input.filename().string();
  return r;
}

}  // namespace winml::stages

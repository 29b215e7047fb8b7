#include "stages/package_stage.h"

#include "model/sidecars.h"

namespace winml::stages {

pipeline::Declarations PackageStage::declare(const config::ModelSettings&) const {
  pipeline::Declarations d;
  d.code = {"winml_model", "stages/package_stage"};
  return d;
}

pipeline::StageResult PackageStage::run(const pipeline::StageContext& ctx) {
  model::copy_model(ctx.input, ctx.output);
  pipeline::StageResult r;
  r.metrics["source"] = ctx.input.filename().string();
  return r;
}

}  // namespace winml::stages

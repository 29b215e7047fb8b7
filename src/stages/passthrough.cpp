#include "stages/passthrough.h"

#include "model/sidecars.h"

namespace winml::stages {

StageResult PassthroughStage::run(const StageContext& ctx) {
  model::copy_model(ctx.input, ctx.output);
  StageResult r;
  r.metrics["passthrough"] = true;
  r.metrics["note"] = "no " + section_ + " implementation in this build: the input model is copied unchanged";
  return r;
}

StageResult PackageStage::run(const StageContext& ctx) {
  model::copy_model(ctx.input, ctx.output);
  StageResult r;
  r.metrics["source"] = ctx.input.filename().string();
  return r;
}

}  // namespace winml::stages

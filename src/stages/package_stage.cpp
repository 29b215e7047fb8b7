#include "stages/package_stage.h"

#include "model/sidecars.h"
#include "base/path_text.h"

namespace winml::stages {

pipeline::Declarations PackageStage::declare(const config::ModelSettings&) const {
  pipeline::Declarations d;
  d.code = {"winml_model", "stages/package_stage"};
  return d;
}

pipeline::StageResult PackageStage::run(const pipeline::StageContext& ctx) {
  model::copy_model(ctx.input, ctx.output);
  pipeline::StageResult r;
  r.metrics["source"] = to_utf8(ctx.input.filename());
  return r;
}

}  // namespace winml::stages

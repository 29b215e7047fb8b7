// The stage implementations of this binary, one line each. Each adapter
// (stages/<name>_stage.h) turns its library (analyze, passes, quant, compile)
// into a Stage; swapping an implementation is replacing its line, e.g.
//
//   r.set("quantize", std::make_shared<QuantizeStage>());
//
// The engine needs no other change: keys, staleness, caching and the manifest
// follow from the Stage's declarations.
#include "stages/builtin.h"
#include "stages/analyze_stage.h"
#include "stages/compile_stage.h"
#include "stages/export_stages.h"
#include "stages/optimize_stage.h"
#include "stages/package_stage.h"
#include "stages/quantize_stage.h"

namespace winml::stages {

void register_builtin_stages(pipeline::StageRegistry& r) {
  r.set("import", std::make_shared<ImportStage>());
  r.set("export", std::make_shared<ExportStage>());
  r.set("analyze", std::make_shared<AnalyzeStage>());
  r.set("optimize", std::make_shared<OptimizeStage>());
  r.set("quantize", std::make_shared<QuantizeStage>());
  r.set("compile", std::make_shared<CompileStage>());
  r.set("package", std::make_shared<PackageStage>());
}

const pipeline::StageRegistry& builtin_stages() {
  static const pipeline::StageRegistry registry = [] {
    pipeline::StageRegistry r;
    register_builtin_stages(r);
    return r;
  }();
  return registry;
}

}  // namespace winml::stages

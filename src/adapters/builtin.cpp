// The stage implementations of this binary, one line each. Each adapter
// (adapters/<name>_stage.h) turns its library (analyze, passes, quant, compile)
// into a Stage; swapping an implementation is replacing its line, e.g.
//
//   r.set("quantize", std::make_shared<QuantizeStage>());
//
// The engine needs no other change: keys, staleness, caching and the manifest
// follow from the Stage's declarations.
#include "adapters/builtin.h"
#include "adapters/analyze_stage.h"
#include "adapters/compile_stage.h"
#include "adapters/export_stages.h"
#include "adapters/optimize_stage.h"
#include "adapters/package_stage.h"
#include "adapters/quantize_stage.h"

namespace winml::stages {

void register_builtin_stages(StageRegistry& r) {
  r.set("import", std::make_shared<ImportStage>());
  r.set("export", std::make_shared<ExportStage>());
  r.set("analyze", std::make_shared<AnalyzeStage>());
  r.set("optimize", std::make_shared<OptimizeStage>());
  r.set("quantize", std::make_shared<QuantizeStage>());
  r.set("compile", std::make_shared<CompileStage>());
  r.set("package", std::make_shared<PackageStage>());
}

const StageRegistry& builtin_stages() {
  static const StageRegistry registry = [] {
    StageRegistry r;
    register_builtin_stages(r);
    return r;
  }();
  return registry;
}

}  // namespace winml::stages

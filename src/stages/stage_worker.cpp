#include "stages/stage_worker.h"

#include <atomic>
#include <new>

#include "base/error.h"
#include "base/progress.h"
#include "base/rules.h"
#include "graph/node.h"
#include "graph/runner.h"
#include "pipeline/build_plan.h"
#include "pipeline/stage_request.h"
#include "pipeline/stage.h"
#include "stages/builtin.h"
#include "base/path_text.h"

namespace winml::stages {

namespace {

std::string run_stage(const pipeline::StageRequest& r) {
  graph::Node node;
  node.kind = r.kind;
  auto stage = pipeline::stage_for(node, builtin_stages());
  if (!stage) return "build\nno implementation registered for '" + r.kind + "'";
  // The project's rules, as the build serves them; the stage sees only the
  // files it declared (pipeline/declarations.h).
  rules::set_active(rules::Rules::for_project(r.source_dir));
  const pipeline::DeclaredView view = pipeline::declared_view(r.declared, r.source_dir, r.config_file);
  rules::Scope rules_scope(view.rules);
  progress::report_to(r.progress_file);
  // A cancelled build stops its workers with SIGTERM: nothing sets this.
  static const std::atomic<bool> never{false};
  const pipeline::StageContext ctx{.config = view.config,
                                   .project_dir = r.project_dir,
                                   .config_file = to_utf8(r.config_file),
                                   .input = r.input,
                                   .input_files = r.input_files,
                                   .output = r.output,
                                   .files = r.files,
                                   .environment = view.environment,
                                   .writes_models = r.declared.writes_models,
                                   .cancel = &never,
                                   .log_file = r.log_file};
  return "ok\n" + stage->run(ctx).metrics.dump();
}

}  // namespace

WorkerAnswer serve_stage_request(const std::string& encoded) {
  try {
    const auto request = pipeline::decode_stage_request(encoded);
    if (!request) return {"build\nthe worker process received a damaged request", false};
    return {run_stage(*request)};
  } catch (const graph::Interrupted&) {
    return {"interrupted\n", false};
  } catch (const InputError& e) {
    return {std::string("input\n") + e.what()};
  } catch (const std::bad_alloc&) {
    // what() says only "std::bad_alloc".
    return {"build\nout of memory: an allocation failed (the machine's memory, or a limit such as ulimit -v or -d)",
            false};
  } catch (const std::exception& e) {
    return {std::string("build\n") + e.what(), false};
  } catch (...) {
    return {"build\nthe stage failed with an unknown exception", false};
  }
}

}  // namespace winml::stages

#include "stages/stage_runner.h"

#include "base/error.h"
#include "base/worker_process.h"
#include "model/sidecars.h"
#include "pipeline/stage_request.h"
#include "base/path_text.h"

namespace winml::stages {

namespace {

// The worker's reply back into the result, or the error it describes.
graph::RunResult from_reply(const std::string& reply) {
  const auto eol = reply.find('\n');
  const std::string kind = reply.substr(0, eol);
  const std::string text = eol == std::string::npos ? "" : reply.substr(eol + 1);
  if (kind == "ok") return {text};
  if (kind == "interrupted") throw graph::Interrupted();
  if (kind == "input") throw InputError(text);
  throw BuildError(text);
}

}  // namespace

graph::RunResult StageRunner::run(const graph::RunRequest& req) {
  if (!stage_for(req.node, session_.registry()))
    throw BuildError(req.node.id() + ": no implementation registered for '" + req.node.kind + "'");
  // The stage sees what it declared when the plan was made, and nothing
  // else (pipeline/declarations.h).
  const auto& source = session_.options().source;
  const pipeline::StageRequest request{.kind = req.node.kind,
                             .declared = session_.declared_context(req.node),
                             .source_dir = source.project_dir,
                             .config_file = source.config_file,
                             .project_dir = req.project_dir,
                             .input = req.inputs.empty() ? fs::path() : req.inputs.front().primary,
                             .input_files = req.inputs.empty() ? std::vector<fs::path>() : req.inputs.front().files,
                             .output = req.staging_dir / req.node.primary_output,
                             .files = req.extra_inputs,
                             .log_file = req.log_file,
                             .progress_file = req.progress_file};
  // The stage runs in a worker process (base/worker_process.h,
  // stages/stage_worker.h): a signal there fails this node only, and the
  // memory it took goes back when it ends.
  const WorkerOutcome w = run_in_worker(pipeline::encode_stage_request(request), req.cancel);
  if (w.cancelled) throw graph::Interrupted();
  if (!w.answered) {
    const std::string how = w.end.crashed() ? "died of " + w.end.describe()
                                            : "ended without an answer (" + w.end.describe() + ")";
    std::string message = "the stage " + how;  // (the report puts the node's name before it)
    std::error_code ec;
    if (!req.log_file.empty() && fs::exists(req.log_file, ec)) message += "; its log: " + to_utf8(req.log_file);
    throw BuildError(message);
  }
  return from_reply(w.reply);
}

std::vector<std::string> StageRunner::model_files(const fs::path& model) {
  std::vector<std::string> names;
  for (const auto& f : model::model_files(model).all())
    names.push_back(f.lexically_relative(model.parent_path()).generic_string());
  return names;
}

std::vector<std::string> artifact_files(const fs::path& primary) {
  if (primary.extension() != ".onnx") return {to_utf8(primary.filename())};
  std::vector<std::string> names;
  for (const auto& f : model::model_files(primary).all())
    names.push_back(f.lexically_relative(primary.parent_path()).generic_string());
  return names;
}

}  // namespace winml::stages

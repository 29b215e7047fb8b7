// How the builder runs a node: the stages layer implements NodeRunner; tests
// implement it with fake stages.
#pragma once

#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "graph/node.h"
#include "base/path_text.h"

namespace winml::graph {

namespace fs = std::filesystem;

// Thrown by a runner that noticed the cancellation flag.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

struct InputArtifact {
  fs::path primary;             // e.g. <out>/<model>/optimized.onnx
  std::vector<fs::path> files;  // primary first, then its sidecars
};

struct RunRequest {
  const Node& node;
  fs::path project_dir;
  fs::path staging_dir;                // write every output here; it is empty and private to this run
  std::vector<InputArtifact> inputs;   // one per dep, in order
  std::vector<fs::path> extra_inputs;  // the declared inputs, resolved
  const std::atomic<bool>* cancel = nullptr;
  fs::path log_file;  // <state>/logs/<model>.<node>.log, kept for the user
  // Where the stage reports how far it is (base/progress.h), for the build to show.
  fs::path progress_file;
};

struct RunResult {
  std::string metrics_json = "{}";  // lands in the manifest under the stage
};

class NodeRunner {
 public:
  virtual ~NodeRunner() = default;
  // Writes the node's primary output (and any sidecars) into
  // request.staging_dir. Throws InputError (bad input), BuildError (stage
  // failure) or Interrupted.
  virtual RunResult run(const RunRequest& request) = 0;
  // The files of an external model input (kModel), primary first, each
  // relative to the model's directory.
  virtual std::vector<std::string> model_files(const fs::path& model) { return {to_utf8(model.filename())}; }
  // The files the artifact at `primary` (a node's primary output) consists
  // of, as names in its folder: its own first, then the sidecars it names.
  // A stage's outputs, run or restored from a cache, must be exactly these.
  // Throws when the artifact cannot be read. By default an artifact is alone.
  virtual std::vector<std::string> artifact_files(const fs::path& primary) { return {to_utf8(primary.filename())}; }
};

}  // namespace winml::graph

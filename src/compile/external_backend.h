// Compile through a vendor's tool for SDK-bound EPs (qnn, vitisai, openvino,
// ...): `[compile] command` runs with {input}, {output}, {output_dir}, {embed}
// and {device} placeholders against a fresh directory, then the result is
// verified before anything is moved into place:
//   - it loads, and holds EPContext nodes;
//   - every external ep_cache_context is a relative path without "..",
//     inside the output directory, naming an existing non-empty file
//     (embedded ones are non-empty);
//   - blobs get content-addressed names "<stem>_<xxh3-128>.bin", so equal
//     compiled bytes always have the same name and a changed blob a new one;
//     their digests are returned for the manifest.
// Files the tool left besides the model and its referenced sidecars are
// discarded (and listed in the metrics).
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compile/ep_target.h"
#include "model/model.h"

namespace winml::compile {

struct ExternalOptions {
  std::vector<std::string> command;                 // with placeholders
  std::map<std::string, std::string> env;           // the tool's entire environment
  bool embed = false;                               // {embed}: "1" or "0"
  std::string device;                               // {device}: [compile] device, else the EP's default
  std::filesystem::path cwd;                        // where the tool runs (the project directory)
  std::filesystem::path log_file;                   // the tool's stdout and stderr (appended)
  std::string config_origin = "[compile] command";  // names the setting in messages
  const std::atomic<bool>* cancel = nullptr;        // stops the tool (see ProcessSpec)
};

nlohmann::json compile_external(const std::filesystem::path& input, const std::filesystem::path& out,
                                const EpTarget& target, const ExternalOptions& options);

// The structural checks above on a compiled model at `path` (InputError or
// BuildError naming the file). Returns per-blob facts: file (or "embedded"),
// bytes, source, partition. Does not rename anything.
nlohmann::json verify_epcontext_model(const std::filesystem::path& path);
nlohmann::json verify_epcontext_model(const model::Model& m);

}  // namespace winml::compile

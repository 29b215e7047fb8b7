// The built-in ahead-of-time backend for the project's own runtime.
//
// The graph is partitioned into the subgraphs the runtime runs (a node is
// supported when the runtime can create its kernel); each partition is
// planned (nodes on constants evaluated at compile time, topological order,
// shapes resolved with `dims`, memory plan) and its plan written as a `ref` blob
// (runtime/ref_blob). The partition's nodes are replaced by one
// com.microsoft::EPContext node carrying the blob, inline (`embed`) or as the
// sidecar "<stem>_ref.bin" ("<stem>_ref_<k>.bin" for further partitions).
// Nodes the runtime cannot run stay in the graph as they are.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "model/model.h"
#include "model/model_io.h"

namespace winml::compile {

struct RefOptions {
  bool embed = false;
  std::map<std::string, std::int64_t> dims;  // symbolic input dimensions (others: 1)
  // Where initializers left outside the blobs go (external data threshold).
  std::uint64_t external_data_threshold = model::kDefaultExternalDataThreshold;
};

// Compiles `in` (consumed: its weights move into the blobs) to `out` and its
// sidecars in out's directory. Returns metrics for the log and manifest.
nlohmann::json compile_ref(model::Model in, const std::filesystem::path& out, const RefOptions& options);

// The sidecar name of partition `k` of the model written to `model_path`.
std::string ref_blob_name(const std::filesystem::path& model_path, std::size_t k);

}  // namespace winml::compile

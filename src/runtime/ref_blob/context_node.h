// An EPContext node holding a `ref` blob, from its attributes to the plan
// the blob stores. One reader of the attributes for the runtime's EPContext
// kernel (epcontext_kernel.h) and the ONNX Runtime plugin EP (ort_ep/), so
// both accept and refuse the same nodes with the same messages.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "runtime/plan.h"
#include "runtime/ref_blob/ref_blob.h"

namespace winml::runtime::ref_blob {

struct ContextNode {
  std::string node_name;
  std::string source;
  std::int64_t main_context = 1;
  std::int64_t embed_mode = 1;  // ONNX Runtime reads a missing embed_mode as 1
  // The blob (embed_mode 1) or its path relative to the model (embed_mode 0).
  std::string_view cache_context;
  // Keeps the embedded bytes alive for the plan's views (null when the
  // caller guarantees they outlive it, such as a model's own attribute).
  std::shared_ptr<const void> cache_keepalive;
  std::string partition_name;  // empty: not checked
  int inputs = 0;
  int outputs = 0;
};

struct LoadedContext {
  std::shared_ptr<const Plan> plan;
  BlobSummary summary;
  std::string what;  // the blob for messages: its file, or "<model>: EPContext node 'x'"
};

// UnsupportedError for another EP's node or a shared context (main_context 0);
// InputError for a missing or malformed context, a blob that is not a valid
// ref blob, or one that does not fit the node (another partition, other input
// or output counts). `model_path` locates a sidecar (embed_mode 0) and names
// the model in messages; empty when unknown (then only embedded blobs load).
LoadedContext load_context(const ContextNode& node, const std::filesystem::path& model_path);

}  // namespace winml::runtime::ref_blob

// The `ref` backend as an ONNX Runtime execution provider (OrtEp): it claims
// what winml-make's runtime runs (claims.h), compiles each fused partition
// into a plan of the runtime, returns EPContext nodes holding the plan as a
// `ref` blob when the session writes an EPContext model (embedded, or in a
// sidecar next to the model ORT writes), and loads such nodes, its own or
// the built-in backend's, to run them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ort_ep/api.h"
#include "ort_ep/compiled_partition.h"
#include "ort_ep/graph_reader.h"
#include "ort_ep/settings.h"

namespace winml::ort_ep {

class RefEp : public OrtEp {
 public:
  RefEp(const Api& api, Settings settings, const OrtLogger* logger);

 private:
  struct Compiled {
    std::unique_ptr<CompiledPartition> partition;  // null in a compile-only session
    OrtNode* context_node = nullptr;               // for the EPContext model, when one is written
  };

  void claim(const OrtGraph* graph, OrtEpGraphSupportInfo* support) const;
  Compiled compile(const OrtGraph* graph, const OrtNode* fused_node);
  Compiled load(const OrtGraph* graph, const OrtNode* context_node, const OrtNode* fused_node) const;
  OrtNode* make_context_node(const OrtNode* fused_node, std::string_view cache_context, bool embedded,
                             const std::string& partition_name, const std::string& notes) const;
  // Where a sidecar goes: next to the EPContext model ORT writes.
  std::filesystem::path context_model_path(const OrtGraph* graph) const;
  void log(OrtLoggingLevel level, const std::string& message) const;

  static const char* ORT_API_CALL name_of(const OrtEp* self) noexcept;
  static OrtStatus* ORT_API_CALL get_capability(OrtEp* self, const OrtGraph* graph,
                                                OrtEpGraphSupportInfo* support) noexcept;
  static OrtStatus* ORT_API_CALL compile_graphs(OrtEp* self, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                                std::size_t count, OrtNodeComputeInfo** infos,
                                                OrtNode** context_nodes) noexcept;
  static void ORT_API_CALL release_infos(OrtEp* self, OrtNodeComputeInfo** infos, std::size_t count) noexcept;
  static const char* ORT_API_CALL compatibility_info(OrtEp* self, const OrtGraph* graph) noexcept;

  const Api& api_;
  const Settings settings_;
  const OrtLogger* logger_;
  GraphReader reader_;
  std::size_t blobs_written_ = 0;  // sidecars of this session: <stem>_ref.bin, <stem>_ref_1.bin, ...
};

}  // namespace winml::ort_ep

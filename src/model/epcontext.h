// Recognising compiled EPContext artifacts (ONNX Runtime's contrib op
// com.microsoft::EPContext) and the blob files they reference.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "model/onnx.h"

namespace winml::model {

inline constexpr const char* kMicrosoftDomain = "com.microsoft";
inline constexpr const char* kEpContextOp = "EPContext";

struct EpContextNode {
  std::string node_name;
  std::string partition_name;
  std::string source;  // EP that produced the blob, e.g. "QNNExecutionProvider"
  std::string ep_sdk_version;
  std::int64_t main_context = 1;
  std::int64_t embed_mode = 1;  // ORT reads a missing attribute as 1 (embedded)
  bool embed_mode_explicit = false;
  std::string blob_file;        // ep_cache_context when embed_mode == 0
  std::uint64_t blob_size = 0;  // embedded bytes, or the file's size when it exists
};

bool is_epcontext_node(const onnx::NodeProto& n);
bool is_epcontext_model(const onnx::ModelProto& m);

// Every EPContext node in the model (all graphs). Sizes of external blobs are
// looked up relative to `model_dir` when it is given.
std::vector<EpContextNode> find_ep_contexts(const onnx::ModelProto& m, const std::filesystem::path& model_dir = {});

// "QNNExecutionProvider, ref" — the distinct `source` values, for messages.
std::string ep_context_sources(const std::vector<EpContextNode>& nodes);

// The blob files referenced with embed_mode == 0, each resolved through
// path_safety and required to exist. InputError naming `model_path` otherwise.
std::vector<std::filesystem::path> resolve_context_files(const onnx::ModelProto& m,
                                                         const std::filesystem::path& model_path);

// Throws InputError with the message the optimize/quantize stages must give
// when handed a compiled model. `action` follows the closing parenthesis, e.g.
// " and cannot be re-optimized. Run optimize on the original ONNX model before compilation."
void refuse_epcontext_input(const onnx::ModelProto& m, const std::string& model_path, const std::string& action);

}  // namespace winml::model

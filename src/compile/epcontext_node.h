// Building and reading the attributes of com.microsoft::EPContext nodes as
// ONNX Runtime's contrib schema defines them.
#pragma once

#include <cstdint>
#include <string>

#include "model/onnx.h"

namespace winml::compile {

struct EpContextAttributes {
  std::int64_t main_context = 1;
  std::string ep_cache_context;  // the blob, or its path relative to the model
  std::int64_t embed_mode = 0;   // always written: ONNX Runtime reads a missing one as 1
  std::string ep_sdk_version;
  std::string partition_name;
  std::string source;
  std::string notes;
};

// An EPContext node named `name` (inputs and outputs are added by the caller).
onnx::NodeProto make_epcontext_node(const std::string& name, EpContextAttributes attributes);

// Adds com.microsoft at version 1 to the model's opset imports if missing.
void import_microsoft_domain(onnx::ModelProto& model);

}  // namespace winml::compile

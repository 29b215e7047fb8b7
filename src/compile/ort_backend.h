// Compiling through ONNX Runtime's compile API (OrtCompileApi), the way an
// application that ships ORT compiles: session options with the EP's device
// appended (SessionOptionsAppendExecutionProvider_V2, the provider options),
// the session config entries, then CompileModel from the input file to an
// EPContext model in a fresh directory, blobs embedded or in .bin files, and
// the initializers left outside the blobs in "<name>.onnx.data" for a model
// at or over the external-data threshold.
//
// Then the output is checked before anything is moved into place (as a
// vendor compiler's is, compiled_output.h): at least one EPContext node,
// every node's `source` the EP asked for; an EP that compiled no node is an
// error naming it and the operators it left, not an empty artifact. Blobs
// get content-addressed names.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "compile/ort_target.h"

namespace winml::compile {

struct OrtBackendOptions {
  OrtTargetSpec target;
  bool embed = false;
  std::map<std::string, std::string> provider_options;  // the EP's options
  std::map<std::string, std::string> session_options;   // session config entries
  std::uint64_t external_data_threshold = 0;
  std::function<void(const std::string&)> log;  // progress, ORT's warnings
};

nlohmann::json compile_ort(const std::filesystem::path& input, const std::filesystem::path& out,
                           const OrtBackendOptions& options);

}  // namespace winml::compile

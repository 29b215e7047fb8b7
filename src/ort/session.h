// A model loaded in ONNX Runtime and run on host tensors: what an
// application that ships ORT does with a model winml-make built
// (`winml-make run --runtime ort`, compile's validation for backend = "ort").
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <onnxruntime_c_api.h>

#include "ort/handle.h"
#include "ort/library.h"

namespace winml::ort {

// A tensor in host memory, row-major. Element types are ONNX's
// (ONNXTensorElementDataType has TensorProto's numbering).
struct Tensor {
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> data;
};

// Bytes per element (0 for strings and types without a fixed size).
std::size_t element_size(ONNXTensorElementDataType type);

struct ValueInfo {
  std::string name;
  bool is_tensor = true;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<std::int64_t> shape;  // -1 for an open dimension
};

struct SessionSettings {
  // Appended with SessionOptionsAppendExecutionProvider_V2 (one EP's
  // devices); none: ORT's CPU EP alone.
  std::vector<const OrtEpDevice*> devices;
  std::map<std::string, std::string> provider_options;
  std::map<std::string, std::string> config_entries;  // AddSessionConfigEntry
  int threads = 0;                                    // intra-op threads; 0: ORT's default
};

class Session {
 public:
  // InputError naming `model` when ORT refuses it (it cannot parse it, an
  // operator has no kernel, the EP refuses its EPContext nodes).
  Session(const Library& library, const std::filesystem::path& model, const SessionSettings& settings);

  const std::vector<ValueInfo>& inputs() const { return inputs_; }
  const std::vector<ValueInfo>& outputs() const { return outputs_; }
  // Every output, by name. BuildError when ORT fails to run it.
  std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& feeds) const;

 private:
  const Library* library_;
  std::filesystem::path model_;
  Handle<OrtSession> session_;
  std::vector<ValueInfo> inputs_, outputs_;
};

}  // namespace winml::ort

#include "ort/session.h"

#include <cstring>

#include "base/error.h"
#include "ort/status.h"
#include "base/path_text.h"

namespace winml::ort {

namespace fs = std::filesystem;

std::size_t element_size(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: return 4;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL: return 1;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return 2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: return 8;
    default: return 0;
  }
}

namespace {

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

ValueInfo value_info(const OrtApi& api, const OrtTypeInfo* type, std::string name) {
  ValueInfo v;
  v.name = std::move(name);
  ONNXType kind = ONNX_TYPE_UNKNOWN;
  check_build(api, api.GetOnnxTypeFromTypeInfo(type, &kind), "type of " + v.name);
  v.is_tensor = kind == ONNX_TYPE_TENSOR;
  if (!v.is_tensor) return v;
  const OrtTensorTypeAndShapeInfo* info = nullptr;
  check_build(api, api.CastTypeInfoToTensorInfo(type, &info), "tensor type of " + v.name);
  check_build(api, api.GetTensorElementType(info, &v.type), "element type of " + v.name);
  std::size_t rank = 0;
  check_build(api, api.GetDimensionsCount(info, &rank), "rank of " + v.name);
  v.shape.resize(rank);
  check_build(api, api.GetDimensions(info, v.shape.data(), rank), "shape of " + v.name);
  return v;
}

// Names and types of the session's inputs or outputs.
std::vector<ValueInfo> values(const OrtApi& api, OrtSession* s, bool inputs) {
  OrtAllocator* allocator = nullptr;
  check_build(api, api.GetAllocatorWithDefaultOptions(&allocator), "ONNX Runtime's allocator");
  std::size_t n = 0;
  check_build(api, inputs ? api.SessionGetInputCount(s, &n) : api.SessionGetOutputCount(s, &n), "value count");
  std::vector<ValueInfo> out;
  for (std::size_t i = 0; i < n; ++i) {
    char* name = nullptr;
    check_build(api, inputs ? api.SessionGetInputName(s, i, allocator, &name) : api.SessionGetOutputName(s, i, allocator, &name),
                "value name");
    std::string text = name;
    check_build(api, api.AllocatorFree(allocator, name), "value name");
    Handle<OrtTypeInfo> type(api.ReleaseTypeInfo);
    check_build(api, inputs ? api.SessionGetInputTypeInfo(s, i, type.out()) : api.SessionGetOutputTypeInfo(s, i, type.out()),
                "type of " + text);
    out.push_back(value_info(api, type.get(), std::move(text)));
  }
  return out;
}

}  // namespace

Session::Session(const Library& library, const fs::path& model, const SessionSettings& settings)
    : library_(&library), model_(model) {
  const OrtApi& api = library.api();
  Handle<OrtSessionOptions> so(api.ReleaseSessionOptions);
  check_build(api, api.CreateSessionOptions(so.out()), "ONNX Runtime's session options");
  if (settings.threads > 0)
    check_build(api, api.SetIntraOpNumThreads(so.get(), settings.threads), "ONNX Runtime's threads");
  for (const auto& [key, value] : settings.config_entries)
    check(api, api.AddSessionConfigEntry(so.get(), key.c_str(), value.c_str()), "session config entry " + key);
  if (!settings.devices.empty()) {
    std::vector<const char*> keys, vals;
    for (const auto& [k, v] : settings.provider_options) keys.push_back(k.c_str()), vals.push_back(v.c_str());
    check(api,
          api.SessionOptionsAppendExecutionProvider_V2(so.get(), library.env(), settings.devices.data(),
                                                       settings.devices.size(), keys.data(), vals.data(), keys.size()),
          "provider options");
  }
  check(api, api.CreateSession(library.env(), model.c_str(), so.get(), session_.out()),
        file_error(to_utf8(model), "ONNX Runtime " + library.version() + " cannot load it"));
  inputs_ = values(api, session_.get(), true);
  outputs_ = values(api, session_.get(), false);
}

std::map<std::string, Tensor> Session::run(const std::map<std::string, Tensor>& feeds) const {
  const OrtApi& api = library_->api();
  Handle<OrtMemoryInfo> cpu(api.ReleaseMemoryInfo);
  check_build(api, api.CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, cpu.out()), "memory info");
  std::vector<Handle<OrtValue>> values;
  std::vector<const char*> names;
  std::vector<const OrtValue*> inputs;
  for (const auto& [name, t] : feeds) {
    const std::size_t bytes = static_cast<std::size_t>(element_count(t.shape)) * element_size(t.type);
    if (bytes != t.data.size() || element_size(t.type) == 0)
      throw InputError(file_error(to_utf8(model_), "input '" + name + "': " + std::to_string(t.data.size()) +
                                                       " bytes do not make a tensor of its type and shape"));
    Handle<OrtValue> v(api.ReleaseValue);
    // ORT reads the caller's bytes in place (it does not write inputs).
    check(api,
          api.CreateTensorWithDataAsOrtValue(cpu.get(), const_cast<std::byte*>(t.data.data()), t.data.size(),
                                             t.shape.data(), t.shape.size(), t.type, v.out()),
          file_error(to_utf8(model_), "input '" + name + "'"));
    names.push_back(name.c_str());
    inputs.push_back(v.get());
    values.push_back(std::move(v));
  }
  std::vector<const char*> output_names;
  for (const auto& o : outputs_) output_names.push_back(o.name.c_str());
  std::vector<OrtValue*> results(output_names.size(), nullptr);
  check_build(api,
              api.Run(session_.get(), nullptr, names.data(), inputs.data(), inputs.size(), output_names.data(),
                      output_names.size(), results.data()),
              file_error(to_utf8(model_), "ONNX Runtime " + library_->version() + " failed to run it"));
  std::vector<Handle<OrtValue>> owned;
  for (OrtValue* r : results) owned.emplace_back(api.ReleaseValue, r);

  std::map<std::string, Tensor> out;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string& name = outputs_[i].name;
    int is_tensor = 0;
    check_build(api, api.IsTensor(results[i], &is_tensor), "output " + name);
    if (!is_tensor) throw BuildError(file_error(to_utf8(model_), "output '" + name + "' is not a tensor"));
    Handle<OrtTensorTypeAndShapeInfo> info(api.ReleaseTensorTypeAndShapeInfo);
    check_build(api, api.GetTensorTypeAndShape(results[i], info.out()), "output " + name);
    Tensor t;
    check_build(api, api.GetTensorElementType(info.get(), &t.type), "output " + name);
    std::size_t rank = 0;
    check_build(api, api.GetDimensionsCount(info.get(), &rank), "output " + name);
    t.shape.resize(rank);
    check_build(api, api.GetDimensions(info.get(), t.shape.data(), rank), "output " + name);
    if (element_size(t.type) == 0)
      throw BuildError(file_error(to_utf8(model_), "output '" + name + "' has an element type without a fixed size"));
    t.data.resize(static_cast<std::size_t>(element_count(t.shape)) * element_size(t.type));
    void* p = nullptr;
    check_build(api, api.GetTensorMutableData(results[i], &p), "output " + name);
    if (!t.data.empty()) std::memcpy(t.data.data(), p, t.data.size());
    out.emplace(name, std::move(t));
  }
  return out;
}

}  // namespace winml::ort

// Loads ONNX Runtime DLLs with LoadLibraryW and prints each one's
// OrtGetApiBase()->GetVersionString(); with --run MODEL, runs the model once
// (wide path, an input of 0.5s) through each and checks that all give the
// same output.
//
//   ort_load [--run MODEL] DLL[=EXPECTED_VERSION]...
// Exit 0 when every DLL loads, has the expected version, and runs alike. A
// DLL without OrtGetApiBase (onnxruntime_providers_shared.dll) only loads.
#include <windows.h>

#include <cstdio>
#include <cstring>
#include <cwchar>
#include <string>
#include <vector>

#include "onnxruntime_c_api.h"

namespace {

bool failed(const OrtApi* api, OrtStatus* status, const char* what) {
  if (!status) return false;
  std::printf("  %s: %s\n", what, api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  return true;
}

// Runs the model on inputs of 0.5 and returns its first output, or nothing.
bool run(const OrtApi* api, const wchar_t* model, std::vector<float>& result) {
  OrtEnv* env = nullptr;
  OrtSessionOptions* options = nullptr;
  OrtSession* session = nullptr;
  if (failed(api, api->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "smoke", &env), "CreateEnv")) return false;
  if (failed(api, api->CreateSessionOptions(&options), "CreateSessionOptions")) return false;
  if (failed(api, api->CreateSession(env, model, options, &session), "CreateSession")) return false;
  size_t inputs_count = 0, outputs_count = 0;
  api->SessionGetInputCount(session, &inputs_count);
  api->SessionGetOutputCount(session, &outputs_count);
  OrtAllocator* allocator = nullptr;
  api->GetAllocatorWithDefaultOptions(&allocator);
  OrtMemoryInfo* memory = nullptr;
  api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &memory);
  std::vector<std::vector<float>> buffers;
  std::vector<OrtValue*> inputs;
  std::vector<char*> input_names, output_names;
  for (size_t i = 0; i < inputs_count; ++i) {
    char* name = nullptr;
    api->SessionGetInputName(session, i, allocator, &name);
    input_names.push_back(name);
    OrtTypeInfo* type = nullptr;
    api->SessionGetInputTypeInfo(session, i, &type);
    const OrtTensorTypeAndShapeInfo* tensor = nullptr;
    api->CastTypeInfoToTensorInfo(type, &tensor);
    size_t rank = 0;
    api->GetDimensionsCount(tensor, &rank);
    std::vector<int64_t> dims(rank);
    api->GetDimensions(tensor, dims.data(), rank);
    size_t n = 1;
    for (auto& d : dims) n *= static_cast<size_t>(d < 0 ? (d = 1) : d);
    buffers.emplace_back(n, 0.5f);
    OrtValue* value = nullptr;
    if (failed(api, api->CreateTensorWithDataAsOrtValue(memory, buffers.back().data(), n * sizeof(float), dims.data(),
                                                        rank, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &value),
               "CreateTensor"))
      return false;
    inputs.push_back(value);
    api->ReleaseTypeInfo(type);
  }
  for (size_t i = 0; i < outputs_count; ++i) {
    char* name = nullptr;
    api->SessionGetOutputName(session, i, allocator, &name);
    output_names.push_back(name);
  }
  std::vector<OrtValue*> outputs(outputs_count, nullptr);
  if (failed(api, api->Run(session, nullptr, input_names.data(), inputs.data(), inputs_count, output_names.data(),
                           outputs_count, outputs.data()),
             "Run"))
    return false;
  OrtTensorTypeAndShapeInfo* shape = nullptr;
  api->GetTensorTypeAndShape(outputs[0], &shape);
  size_t count = 0;
  api->GetTensorShapeElementCount(shape, &count);
  float* data = nullptr;
  api->GetTensorMutableData(outputs[0], reinterpret_cast<void**>(&data));
  result.assign(data, data + count);
  std::printf("  ran the model: %zu input(s), %zu output(s), %s[0] = %.9g of %zu\n", inputs_count, outputs_count,
              output_names[0], result[0], count);
  return true;
}

}  // namespace

int wmain(int argc, wchar_t** argv) {
  int failures = 0;
  const wchar_t* model = nullptr;
  std::vector<float> first_result;
  bool have_first = false;
  for (int i = 1; i < argc; ++i) {
    if (std::wcscmp(argv[i], L"--run") == 0 && i + 1 < argc) {
      model = argv[++i];
      continue;
    }
    std::wstring path = argv[i], expected;
    if (auto eq = path.rfind(L'='); eq != std::wstring::npos) {
      expected = path.substr(eq + 1);
      path.resize(eq);
    }
    HMODULE library = LoadLibraryW(path.c_str());
    if (!library) {
      std::printf("%ls: LoadLibraryW failed, error %lu\n", path.c_str(), GetLastError());
      ++failures;
      continue;
    }
    auto get_api_base =
        reinterpret_cast<const OrtApiBase*(ORT_API_CALL*)()>(GetProcAddress(library, "OrtGetApiBase"));
    if (!get_api_base) {
      std::printf("%ls: loaded (no OrtGetApiBase)\n", path.c_str());
      continue;
    }
    const OrtApiBase* base = get_api_base();
    const char* version = base->GetVersionString();
    std::printf("%ls: ONNX Runtime %s\n", path.c_str(), version);
    if (!expected.empty() && std::wstring(version, version + std::strlen(version)) != expected) {
      std::printf("  expected %ls\n", expected.c_str());
      ++failures;
    }
    if (!model) continue;
    const OrtApi* api = base->GetApi(ORT_API_VERSION);
    if (!api) {
      std::printf("  no API version %d\n", ORT_API_VERSION);
      ++failures;
      continue;
    }
    std::vector<float> result;
    if (!run(api, model, result)) {
      ++failures;
    } else if (!have_first) {
      first_result = result;
      have_first = true;
    } else if (result != first_result) {
      std::printf("  the output differs from the first DLL's\n");
      ++failures;
    }
  }
  return failures;
}

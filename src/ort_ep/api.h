// The ONNX Runtime C API tables the plugin EP uses, taken once from the
// OrtApiBase that ORT hands to CreateEpFactories, and the one way errors
// cross between the two: every entry point ORT calls catches our exceptions
// into an OrtStatus (with ORT's error code for their kind), and every ORT
// call we make turns a failed status into an exception.
#pragma once

#include <onnxruntime_c_api.h>

#include <optional>
#include <string>

namespace winml::ort_ep {

// ORT_API_VERSION of the headers we build with: the library must serve it
// (ONNX Runtime 1.29 and newer).
struct Api {
  const OrtApi* ort = nullptr;
  const OrtEpApi* ep = nullptr;
  const OrtModelEditorApi* editor = nullptr;
};

// The tables from `base`; nullopt when the library is older than our headers.
std::optional<Api> make_api(const OrtApiBase* base);

// Throws (BuildError) "<what>: <ORT's message>" for a failed status, releasing it.
void check(const Api& api, OrtStatus* status, const char* what);

// The current exception as an OrtStatus: InputError -> ORT_INVALID_ARGUMENT,
// an unsupported model -> ORT_NOT_IMPLEMENTED, anything else -> ORT_EP_FAIL.
OrtStatus* status_from_current_exception(const Api& api) noexcept;

// Runs `fn`, returning its failure as an OrtStatus (nullptr on success).
template <class Fn>
OrtStatus* guarded(const Api& api, Fn&& fn) noexcept {
  try {
    fn();
    return nullptr;
  } catch (...) {
    return status_from_current_exception(api);
  }
}

}  // namespace winml::ort_ep

// The two symbols libwinml_ref_ep.so exports (exports.map): ONNX Runtime's
// RegisterExecutionProviderLibrary finds them by name.
#include <string>

#include "ort_ep/ep_factory.h"

using winml::ort_ep::RefEpFactory;

extern "C" {

__attribute__((visibility("default"))) OrtStatus* CreateEpFactories(const char* /*registered_name*/,
                                                                     const OrtApiBase* ort_api_base,
                                                                     const OrtLogger* default_logger,
                                                                     OrtEpFactory** factories,
                                                                     size_t max_factories, size_t* num_factories) {
  *num_factories = 0;
  std::optional<winml::ort_ep::Api> api = winml::ort_ep::make_api(ort_api_base);
  if (!api) {
    // An ONNX Runtime older than our headers: say so through its oldest API.
    const OrtApi* oldest = ort_api_base ? ort_api_base->GetApi(1) : nullptr;
    std::string message = std::string("WinmlMakeRefExecutionProvider needs ONNX Runtime 1.") +
                          std::to_string(ORT_API_VERSION) + " or newer; this is " +
                          (ort_api_base ? ort_api_base->GetVersionString() : "unknown");
    return oldest ? oldest->CreateStatus(ORT_FAIL, message.c_str()) : nullptr;
  }
  if (max_factories < 1)
    return api->ort->CreateStatus(ORT_INVALID_ARGUMENT, "no room for the WinmlMakeRefExecutionProvider factory");
  return winml::ort_ep::guarded(*api, [&] {
    factories[0] = new RefEpFactory(*api, default_logger);
    *num_factories = 1;
  });
}

__attribute__((visibility("default"))) OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  delete static_cast<RefEpFactory*>(factory);
  return nullptr;
}

}  // extern "C"

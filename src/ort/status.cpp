#include "ort/status.h"

#include "base/error.h"

namespace winml::ort {

const char* error_code_name(OrtErrorCode code) {
  switch (code) {
    case ORT_OK: return "ok";
    case ORT_FAIL: return "failure";
    case ORT_INVALID_ARGUMENT: return "invalid argument";
    case ORT_NO_SUCHFILE: return "no such file";
    case ORT_NO_MODEL: return "no model";
    case ORT_ENGINE_ERROR: return "engine error";
    case ORT_RUNTIME_EXCEPTION: return "runtime exception";
    case ORT_INVALID_PROTOBUF: return "invalid protobuf";
    case ORT_MODEL_LOADED: return "model loaded";
    case ORT_NOT_IMPLEMENTED: return "not implemented";
    case ORT_INVALID_GRAPH: return "invalid graph";
    case ORT_EP_FAIL: return "execution provider failure";
    case ORT_MODEL_LOAD_CANCELED: return "model load canceled";
    case ORT_MODEL_REQUIRES_COMPILATION: return "model requires compilation";
    case ORT_NOT_FOUND: return "not found";
    default: return "error";  // codes newer than these headers
  }
}

namespace {

bool is_input_error(OrtErrorCode code) {
  switch (code) {
    case ORT_INVALID_ARGUMENT:
    case ORT_NO_SUCHFILE:
    case ORT_NO_MODEL:
    case ORT_INVALID_PROTOBUF:
    case ORT_NOT_IMPLEMENTED:
    case ORT_INVALID_GRAPH:
    case ORT_MODEL_REQUIRES_COMPILATION:
    case ORT_NOT_FOUND: return true;
    default: return false;
  }
}

// The message and code, the status released.
std::pair<std::string, OrtErrorCode> take(const OrtApi& api, OrtStatus* status) {
  const OrtErrorCode code = api.GetErrorCode(status);
  const char* m = api.GetErrorMessage(status);
  std::string message = m && *m ? m : error_code_name(code);
  api.ReleaseStatus(status);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return {std::move(message), code};
}

}  // namespace

void check(const OrtApi& api, OrtStatus* status, const std::string& what) {
  if (!status) return;
  auto [message, code] = take(api, status);
  if (is_input_error(code)) throw InputError(what + ": " + message);
  throw BuildError(what + ": " + message);
}

void check_build(const OrtApi& api, OrtStatus* status, const std::string& what) {
  if (!status) return;
  throw BuildError(what + ": " + take(api, status).first);
}

}  // namespace winml::ort

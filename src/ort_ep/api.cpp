#include "ort_ep/api.h"

#include <exception>
#include <new>

#include "base/error.h"
#include "runtime/errors.h"

namespace winml::ort_ep {

std::optional<Api> make_api(const OrtApiBase* base) {
  if (!base) return std::nullopt;
  Api api;
  api.ort = base->GetApi(ORT_API_VERSION);
  if (!api.ort) return std::nullopt;
  api.ep = api.ort->GetEpApi();
  api.editor = api.ort->GetModelEditorApi();
  if (!api.ep || !api.editor) return std::nullopt;
  return api;
}

void check(const Api& api, OrtStatus* status, const char* what) {
  if (!status) return;
  std::string message = std::string(what) + ": " + api.ort->GetErrorMessage(status);
  api.ort->ReleaseStatus(status);
  throw BuildError(message);
}

OrtStatus* status_from_current_exception(const Api& api) noexcept {
  try {
    throw;
  } catch (const runtime::UnsupportedError& e) {
    return api.ort->CreateStatus(ORT_NOT_IMPLEMENTED, e.what());
  } catch (const InputError& e) {
    return api.ort->CreateStatus(ORT_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return api.ort->CreateStatus(ORT_EP_FAIL, "out of memory");
  } catch (const std::exception& e) {
    return api.ort->CreateStatus(ORT_EP_FAIL, e.what());
  } catch (...) {
    return api.ort->CreateStatus(ORT_EP_FAIL, "unknown error");
  }
}

}  // namespace winml::ort_ep

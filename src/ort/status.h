// OrtStatus to the project's errors. ORT reports bad input (an invalid
// argument, a missing file, a model it cannot parse or whose graph is
// invalid, something not implemented for it) with codes of its own; those
// become InputError (exit 2), anything else BuildError (exit 1).
#pragma once

#include <string>

#include <onnxruntime_c_api.h>

namespace winml::ort {

// Nothing for a null status; otherwise releases it and throws
// "<what>: <ORT's message>" as InputError or BuildError by its code.
void check(const OrtApi& api, OrtStatus* status, const std::string& what);

// The same, always as BuildError (for calls where any failure is ours or the
// runtime's, not the user's).
void check_build(const OrtApi& api, OrtStatus* status, const std::string& what);

// ORT_INVALID_ARGUMENT -> "invalid argument", for messages.
const char* error_code_name(OrtErrorCode code);

}  // namespace winml::ort

// Runtime error kinds. Malformed models and inputs are winml::InputError (exit 2);
// valid models the runtime cannot execute are UnsupportedError, a BuildError
// (exit 1) so that callers can tell "not implemented" from "broken input".
#pragma once

#include <string>

#include "base/error.h"

namespace winml::runtime {

class UnsupportedError : public BuildError {
 public:
  using BuildError::BuildError;
};

}  // namespace winml::runtime

#include <stdexcept>
#include <string>

#include "thrower.h"

std::string smoke_throw_if(int code) {
  if (code != 0) throw SmokeError("thrown in the DLL: " + std::to_string(code));
  return "not thrown";
}

#pragma once
#include <stdexcept>
#include <string>

struct SmokeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

#ifdef smoke_thrower_EXPORTS
__declspec(dllexport)
#else
__declspec(dllimport)
#endif
std::string smoke_throw_if(int code);

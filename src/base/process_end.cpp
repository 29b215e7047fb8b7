#include "base/process_end.h"

#include <cstdio>
#include <string_view>

namespace winml {

namespace {

// The exceptions a crashing Windows program ends with most often.
std::string_view exception_name(std::uint32_t code) {
  switch (code) {
    case 0xC0000005: return "access violation";
    case 0xC00000FD: return "stack overflow";
    case 0xC0000409: return "stack buffer overrun or fast fail";
    case 0xC000001D: return "illegal instruction";
    case 0xC0000094: return "integer division by zero";
    case 0xC0000017: return "out of memory";
    case 0xC000013A: return "stopped by Ctrl-C";
    case 0xC0000135: return "a DLL it needs was not found";
    case 0xC0000139: return "an entry point it needs was not found";
    case 0xC0000142: return "a DLL failed to initialize";
    default: return "";
  }
}

}  // namespace

std::string ProcessEnd::describe() const {
  if (signal) return describe_signal(signal);
  if (exception) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08X", static_cast<unsigned>(exception));
    const std::string_view name = exception_name(exception);
    return name.empty() ? std::string(hex) : std::string(hex) + " (" + std::string(name) + ")";
  }
  return "exit code " + std::to_string(code);
}

int ProcessEnd::shell_code() const {
  if (signal) return 128 + signal;
  if (exception) return static_cast<int>(exception);
  return code;
}

}  // namespace winml

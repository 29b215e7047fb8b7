// How a child process ended, in the terms of the system it ran on: an exit
// code; on POSIX, the signal that killed it; on Windows, the exception
// (an NTSTATUS such as 0xC0000005) that ended it.
#pragma once

#include <cstdint>
#include <string>

namespace winml {

struct ProcessEnd {
  bool exited = false;          // ended by itself, with `code`
  int code = -1;                // the exit code (exited)
  int signal = 0;               // POSIX: the signal that ended it
  std::uint32_t exception = 0;  // Windows: the exception that ended it

  // Killed by a signal or an exception rather than ending by itself.
  bool crashed() const { return signal != 0 || exception != 0; }
  // "exit code 3", "SIGSEGV (Segmentation fault)", "0xC0000005 (access violation)".
  std::string describe() const;
  // The shell's convention for one number: the exit code, 128 + signal, or
  // the exception's code.
  int shell_code() const;
};

// "SIGSEGV (Segmentation fault)": a signal's name and description.
std::string describe_signal(int signal);

}  // namespace winml

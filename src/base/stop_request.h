// The user or the system asking winml-make to stop: SIGINT, SIGTERM and
// SIGHUP on POSIX (a signal the parent left ignored, as nohup does, stays
// ignored); Ctrl-C, Ctrl-Break and the console closing on Windows
// (base/posix/stop_request.cpp, base/windows/stop_request.cpp).
#pragma once

#include <string_view>

namespace winml {

// `handler` runs for each request: in a signal handler on POSIX, on a
// thread of its own on Windows. Async-signal-safe work only.
void on_stop_request(void (*handler)());

// What a handler may do: write to stderr, and end the process at once.
void write_to_stderr_now(std::string_view text);
[[noreturn]] void exit_now(int code);

}  // namespace winml

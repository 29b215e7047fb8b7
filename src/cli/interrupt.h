// SIGINT/SIGTERM/SIGHUP (Ctrl-C, Ctrl-Break on Windows) during a build: the first one asks the build to stop
// cleanly (running stages are cancelled, nothing half-written is recorded,
// exit code 130); a second one exits at once.
#pragma once

#include <atomic>

namespace winml::cli {

const std::atomic<bool>& install_interrupt_handler();

}  // namespace winml::cli

#include "cli/interrupt.h"

#include "base/child_processes.h"
#include "base/error.h"
#include "base/stop_request.h"

namespace winml::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void on_stop() {
  if (g_interrupted.exchange(true)) {
    // Nothing this process started outlives it.
    end_all_children_now();
    exit_now(kExitInterrupted);
  }
  write_to_stderr_now("\nwinml-make: interrupted; stopping (press Ctrl-C again to quit at once)\n");
}

}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  on_stop_request(on_stop);
  return g_interrupted;
}

}  // namespace winml::cli

#include "cli/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include "base/error.h"

namespace winml::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void on_signal(int) {
  if (g_interrupted.exchange(true)) ::_exit(kExitInterrupted);
  const char msg[] = "\nwinml-make: interrupted; stopping (press Ctrl-C again to quit at once)\n";
  (void)!::write(2, msg, sizeof msg - 1);
}

}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM}) {
    // The Unix convention: a signal the parent ignores (a background job of
    // a non-interactive shell, nohup) stays ignored.
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler != SIG_IGN) ::sigaction(sig, &sa, nullptr);
  }
  return g_interrupted;
}

}  // namespace winml::cli

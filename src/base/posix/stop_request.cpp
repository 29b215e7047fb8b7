#include "base/stop_request.h"

#include <signal.h>
#include <unistd.h>

namespace winml {

namespace {
void (*g_handler)() = nullptr;
void on_signal(int) { g_handler(); }
}  // namespace

void on_stop_request(void (*handler)()) {
  g_handler = handler;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    // The Unix convention: a signal the parent ignores (a background job of
    // a non-interactive shell, nohup) stays ignored.
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler != SIG_IGN) ::sigaction(sig, &sa, nullptr);
  }
}

void write_to_stderr_now(std::string_view text) { (void)!::write(2, text.data(), text.size()); }

void exit_now(int code) { ::_exit(code); }

}  // namespace winml

// A worker process: a forked copy of this process that runs one piece of
// work and answers with a string, so that whatever happens inside it (a
// signal, an abort, memory it never frees) stays there. The caller learns
// what the worker answered and how it ended. Ninja and Bazel run their
// actions apart from the build the same way.
#pragma once

#include <atomic>
#include <functional>
#include <string>

namespace winml {

struct WorkerOutcome {
  std::string reply;       // what `work` returned (empty when the worker died first)
  bool answered = false;   // the worker returned from `work` and sent its whole reply
  bool exited = false;     // exited normally, with exit_code
  int exit_code = -1;
  int signal = 0;          // the signal that ended it (exited is false)
  bool cancelled = false;  // *cancel turned true while it ran: it was sent SIGTERM (SIGKILL after 5 s)
};

// Forks, runs `work` in the child and returns its outcome once the child has
// ended. `work` must not throw (it reports its own errors in its reply). The
// child dies with the thread that started it (SIGKILL), takes SIGINT and
// SIGTERM by default, and never returns into the caller's code: it exits
// without running static destructors or atexit handlers. BuildError when no
// worker can be started.
WorkerOutcome run_in_worker(const std::function<std::string()>& work, const std::atomic<bool>* cancel);

// "SIGSEGV (Segmentation fault)": a signal's name and description.
std::string describe_signal(int signal);

}  // namespace winml

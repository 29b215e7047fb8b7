// A worker process: this program started again to run one piece of work and
// answer with a string, so that whatever happens inside it (a signal, an
// abort, memory it never frees) stays there. The caller learns what the
// worker answered and how it ended. Ninja and Bazel run their actions apart
// from the build the same way.
//
// The worker is a new program (POSIX: fork, then exec at once; Windows:
// CreateProcessW), not a forked copy that goes on running: a copy inherits
// every lock another thread of the build held at the moment of the fork (the
// allocator's, a static initializer's guard, a library's registry) and can
// wait on one forever. base/posix/worker_process.cpp,
// base/windows/worker_process.cpp.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "base/process_end.h"

namespace winml {

struct WorkerOutcome {
  std::string reply;       // what the worker answered (empty when it died first)
  bool answered = false;   // the worker sent its whole reply
  ProcessEnd end;          // how it ended
  // *cancel turned true while it ran: it was stopped with what it started
  // (POSIX: SIGTERM to its group, SIGKILL after 5 s; Windows: its job terminated).
  bool cancelled = false;
};

// The argument that makes this program a worker (argv[1]); never typed by a user.
inline constexpr const char* kWorkerArgument = "--worker-process";

// Starts this program as `<program> --worker-process`, hands it `request`
// and returns its outcome once it has ended. The worker dies with the
// process that started it (POSIX: SIGKILL when its parent dies; Windows: its
// job is killed when the last handle closes). BuildError when no worker can
// be started.
WorkerOutcome run_in_worker(const std::string& request, const std::atomic<bool>* cancel);

// Whether this process was started by run_in_worker.
bool is_worker_invocation(int argc, char** argv);

// The worker's side: reads the request, answers `serve(request)` (which must
// not throw: it reports its own errors in its answer) and exits without
// running static destructors or atexit handlers. Exit code 2 when this
// process was not started by run_in_worker.
[[noreturn]] void serve_as_worker(const std::function<std::string(const std::string&)>& serve);

}  // namespace winml

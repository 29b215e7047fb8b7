// A worker process: this program started again to run pieces of work and
// answer each with a string, so that whatever happens inside it (a signal,
// an abort) stays there. The caller learns what the worker answered and how
// it ended. Ninja and Bazel run their actions apart from the build the same
// way.
//
// The worker is a new program (POSIX: fork, then exec at once; Windows:
// CreateProcessW), not a forked copy that goes on running: a copy inherits
// every lock another thread of the build held at the moment of the fork (the
// allocator's, a static initializer's guard, a library's registry) and can
// wait on one forever. base/posix/worker_process.cpp,
// base/windows/worker_process.cpp.
//
// A worker serves the thread that started it one request after another
// (a persistent worker, as Bazel's and n2's): starting one costs its
// dynamic linking and the model tools' loading, more than a small model's
// stage (Linux: 15 ms; Wine: 0.4 s). It ends after a reply instead when the
// request may have left it unlike a new one (serve said so: an interrupted
// or failed request), when it loaded a library at run time (ONNX Runtime or
// an EP plugin: a process keeps the first library of a name, and a later
// request may name another), or when its peak memory passed
// kWorkerMemoryToKeep (memory a long-lived process keeps). An idle worker
// ends with its thread, or with this process.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "base/process_end.h"

namespace winml {

struct WorkerOutcome {
  std::string reply;       // what the worker answered (empty when it died first)
  bool answered = false;   // the worker sent its whole reply
  ProcessEnd end;          // how it ended (one that serves again: as if it had exited with 0)
  // *cancel turned true while it ran: it was stopped with what it started
  // (POSIX: SIGTERM to its group, SIGKILL after 5 s; Windows: its job terminated).
  bool cancelled = false;
};

// The argument that makes this program a worker (argv[1]); never typed by a user.
inline constexpr const char* kWorkerArgument = "--worker-process";

// Hands `request` to this thread's idle worker, or to this program started
// as `<program> --worker-process`, and returns the outcome once it has
// answered (and, unless it serves again, ended). The worker dies with the
// process that started it (POSIX: SIGKILL when its parent dies; Windows: its
// job is killed when the last handle closes). BuildError when no worker can
// be started.
WorkerOutcome run_in_worker(const std::string& request, const std::atomic<bool>* cancel);

// Whether this process was started by run_in_worker.
bool is_worker_invocation(int argc, char** argv);

// What a worker's serve function answers: the reply, and whether the request
// left the process as fit to serve another as a new one.
struct WorkerAnswer {
  std::string reply;
  bool fit_for_more = true;
};

// Above this peak resident memory a worker ends after its reply.
inline constexpr std::uint64_t kWorkerMemoryToKeep = std::uint64_t{512} << 20;

// $WINML_MAKE_WORKER_REUSE=0: every request gets a new worker (for measuring
// what reuse saves, and for ruling it out when a stage misbehaves).
bool worker_reuse_enabled();

// The worker's side: reads requests one after another, answers each with
// `serve(request)` (which must not throw: it reports its own errors in its
// answer) and exits, without running static destructors or atexit handlers,
// after a reply it does not serve again after (see above) or when the
// build has no more requests. Exit code 2 when this process was not started
// by run_in_worker.
[[noreturn]] void serve_as_worker(const std::function<WorkerAnswer(const std::string&)>& serve);

// Whether a worker that answered `answer` serves again: fit for more, no
// library loaded since `libraries_before` (shared_libraries_opened()), its
// peak memory under kWorkerMemoryToKeep.
bool serves_again_after(const WorkerAnswer& answer, std::size_t libraries_before);

}  // namespace winml

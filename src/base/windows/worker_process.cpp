#include "base/worker_process.h"

#include <windows.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>

#include "base/error.h"
#include "base/this_executable.h"
#include "base/thread_owned.h"
#include "base/windows/child_job.h"
#include "base/windows/wide.h"
#include "base/worker_framing.h"

namespace winml {

namespace {

// How a worker finds its two pipes: "<request handle>:<reply handle>",
// inherited values. (POSIX uses descriptors 3 and 4; Windows has no such
// numbering to inherit.)
constexpr const wchar_t* kChannelVariable = L"WINML_MAKE_WORKER_CHANNEL";

// This process's environment with the channel variable set.
std::wstring environment_with_channel(HANDLE request, HANDLE reply) {
  const std::wstring channel = std::wstring(kChannelVariable) + L"=" +
                               std::to_wstring(reinterpret_cast<std::uintptr_t>(request)) + L":" +
                               std::to_wstring(reinterpret_cast<std::uintptr_t>(reply));
  std::wstring block;
  if (wchar_t* env = GetEnvironmentStringsW()) {
    for (const wchar_t* p = env; *p; p += wcslen(p) + 1) {
      const std::wstring_view kv(p);
      if (kv.rfind(std::wstring(kChannelVariable) + L"=", 0) == 0) continue;
      block.append(kv);
      block += L'\0';
    }
    FreeEnvironmentStringsW(env);
  }
  block += channel;
  block += L'\0';
  return block + L'\0';
}

struct Handle {
  HANDLE h = nullptr;
  ~Handle() { close(); }
  void close() {
    if (h) CloseHandle(h);
    h = nullptr;
  }
};

// Writes all of `data`; false when a write fails first (the reader is gone).
bool write_all(HANDLE h, std::string_view data) {
  while (!data.empty()) {
    DWORD n = 0;
    const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(data.size(), 1 << 20));
    if (!WriteFile(h, data.data(), chunk, &n, nullptr) || n == 0) return false;
    data.remove_prefix(n);
  }
  return true;
}

// A started worker, as its parent holds it: the process in a job of its
// own, the write end of its request pipe and the read end of its reply pipe.
struct Worker {
  windows::ChildJob job;
  Handle process, requests, replies;
  bool reused = false;
};

// The idle worker of a thread, kept between its requests (base/thread_owned.h;
// the main thread's ends with the process, which closes its job).
struct Slot {
  std::unique_ptr<Worker> idle;
};

std::unique_ptr<Worker> start_worker() {
  SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
  auto w = std::make_unique<Worker>();
  Handle request_read, reply_write;
  if (!CreatePipe(&request_read.h, &w->requests.h, &inherit, 0) ||
      !CreatePipe(&w->replies.h, &reply_write.h, &inherit, 0))
    throw BuildError("cannot create a worker's channel: " + windows::error_text(GetLastError()));
  SetHandleInformation(w->requests.h, HANDLE_FLAG_INHERIT, 0);
  SetHandleInformation(w->replies.h, HANDLE_FLAG_INHERIT, 0);

  const std::wstring program = this_executable().native();
  const std::wstring env = environment_with_channel(request_read.h, reply_write.h);
  windows::ChildStart start{.application = program,
                            .command_line = windows::quote_argument(program) + L" " + windows::widen(kWorkerArgument),
                            .environment = &env,
                            .std_in = windows::null_device(false),
                            .std_out = nullptr,
                            .std_err = nullptr,
                            .also_inherited = {request_read.h, reply_write.h}};
  Handle std_in{start.std_in};
  // The worker writes its messages (a crash's last words) where this process does.
  Handle std_out, std_err;
  DuplicateHandle(GetCurrentProcess(), GetStdHandle(STD_OUTPUT_HANDLE), GetCurrentProcess(), &std_out.h, 0, TRUE,
                  DUPLICATE_SAME_ACCESS);
  DuplicateHandle(GetCurrentProcess(), GetStdHandle(STD_ERROR_HANDLE), GetCurrentProcess(), &std_err.h, 0, TRUE,
                  DUPLICATE_SAME_ACCESS);
  start.std_out = std_out.h;
  start.std_err = std_err.h;
  std::string error;
  w->process.h = windows::start_in_job(start, w->job, error);
  if (!w->process.h) throw BuildError("cannot start a worker process: " + error);
  return w;
}

// This thread's idle worker if it is still there, else a new one.
std::unique_ptr<Worker> take_worker() {
  Slot& slot = thread_owned<Slot>();
  if (auto w = std::move(slot.idle)) {
    if (WaitForSingleObject(w->process.h, 0) == WAIT_TIMEOUT) {
      w->reused = true;
      return w;
    }
  }
  return start_worker();
}

// What waiting on a worker gave: what it sent, whether it was stopped, and
// whether it ended (not when it answered and serves again).
struct Waited {
  ReplyBuffer replies;
  bool cancelled = false;
  bool ended = false;
};

// Waits until the worker has answered and serves again, or has ended; once
// *cancel turns true, ends its job (the worker and every command it runs).
Waited wait_for(Worker& w, const std::atomic<bool>* cancel) {
  Waited out;
  const auto drain = [&] {
    for (DWORD available = 0; PeekNamedPipe(w.replies.h, nullptr, 0, nullptr, &available, nullptr) && available;) {
      std::string chunk(available, '\0');
      DWORD n = 0;
      if (!ReadFile(w.replies.h, chunk.data(), available, &n, nullptr) || n == 0) return;
      out.replies.add(chunk.data(), n);
    }
  };
  for (;;) {
    const DWORD waited = WaitForSingleObject(w.process.h, 5);
    drain();
    if (out.replies.serves_again() && !out.cancelled) return out;
    if (waited != WAIT_TIMEOUT) {
      drain();  // what it wrote before it ended is all in the pipe now
      out.ended = true;
      return out;
    }
    if (cancel && cancel->load() && !out.cancelled) {
      out.cancelled = true;
      w.job.terminate();
    }
  }
}

}  // namespace

WorkerOutcome run_in_worker(const std::string& request, const std::atomic<bool>* cancel) {
  std::unique_ptr<Worker> w = take_worker();
  const std::string framed = frame(request);
  // A worker found gone when handed the request never saw it: another
  // takes it. (One that goes while running it is that request's outcome.)
  // A new worker's request is written by a thread of its own: one that
  // dies (or hangs) before reading it all only ends (or holds) the write.
  std::thread feed;
  const auto hand_over = [&] {
    feed = std::thread([&framed, requests = w->requests.h] { write_all(requests, framed); });
  };
  // An idle worker is waiting in its read: written here, the request goes
  // through, or fails at once when that worker is gone.
  if (!w->reused) {
    hand_over();
  } else if (!write_all(w->requests.h, framed)) {
    w = start_worker();
    hand_over();
  }
  Waited waited = wait_for(*w, cancel);
  if (feed.joinable()) feed.join();
  WorkerOutcome out{.cancelled = waited.cancelled};
  if (auto reply = waited.replies.take()) {
    out.reply = std::move(reply->answer);
    out.answered = true;
  }
  if (!waited.ended) {
    out.end = {.exited = true, .code = 0};
    // It waits for the next request: this thread keeps it (or, without
    // reuse, its job ends it here).
    if (worker_reuse_enabled()) thread_owned<Slot>().idle = std::move(w);
    return out;
  }
  DWORD code = 0;
  GetExitCodeProcess(w->process.h, &code);
  out.end = windows::end_of(code);
  return out;
}

namespace {

// A worker leaves stopping to the build, which ends its whole job.
BOOL WINAPI ignore_console_event(DWORD) { return TRUE; }

}  // namespace

[[noreturn]] void serve_as_worker(const std::function<WorkerAnswer(const std::string&)>& serve) {
  const std::wstring channel = [] {
    wchar_t buffer[64] = {};
    const DWORD n = GetEnvironmentVariableW(kChannelVariable, buffer, 64);
    return n > 0 && n < 64 ? std::wstring(buffer, n) : std::wstring();
  }();
  const auto colon = channel.find(L':');
  if (colon == std::wstring::npos) {
    std::cerr << "winml-make: error: " << kWorkerArgument
              << " is how a build starts its workers; it is not a command\n";
    std::_Exit(2);
  }
  HANDLE request_read = reinterpret_cast<HANDLE>(static_cast<std::uintptr_t>(std::stoull(channel.substr(0, colon))));
  HANDLE reply_write = reinterpret_cast<HANDLE>(static_cast<std::uintptr_t>(std::stoull(channel.substr(colon + 1))));
  SetEnvironmentVariableW(kChannelVariable, nullptr);  // not for the commands a stage runs
  SetConsoleCtrlHandler(ignore_console_event, TRUE);
  // A crash ends the worker with its exception code, at once: no error
  // dialog waits for a click on a build machine.
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);

  serve_requests(
      [request_read](char* buffer, std::size_t size) {
        DWORD n = 0;
        // The build closed its end (or ended): no more work for this worker.
        if (!ReadFile(request_read, buffer, static_cast<DWORD>(size), &n, nullptr)) return 0LL;
        return static_cast<long long>(n);
      },
      [reply_write](std::string_view data) { return write_all(reply_write, data); }, serve);
}

}  // namespace winml

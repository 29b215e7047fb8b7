#include "base/worker_process.h"

#include <windows.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "base/error.h"
#include "base/this_executable.h"
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
  ~Handle() {
    if (h) CloseHandle(h);
  }
};

}  // namespace

WorkerOutcome run_in_worker(const std::string& request, const std::atomic<bool>* cancel) {
  SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
  Handle request_read, request_write, reply_read, reply_write;
  if (!CreatePipe(&request_read.h, &request_write.h, &inherit, 0) ||
      !CreatePipe(&reply_read.h, &reply_write.h, &inherit, 0))
    throw BuildError("cannot create a worker's channel: " + windows::error_text(GetLastError()));
  SetHandleInformation(request_write.h, HANDLE_FLAG_INHERIT, 0);
  SetHandleInformation(reply_read.h, HANDLE_FLAG_INHERIT, 0);

  const std::wstring program = this_executable().native();
  const std::wstring env = environment_with_channel(request_read.h, reply_write.h);
  windows::ChildStart start{.application = program,
                            .command_line = windows::quote_argument(program) + L" " +
                                            windows::widen(kWorkerArgument),
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

  windows::ChildJob job;
  std::string error;
  Handle process{windows::start_in_job(start, job, error)};
  if (!process.h) throw BuildError("cannot start a worker process: " + error);
  CloseHandle(request_read.h);
  request_read.h = nullptr;
  CloseHandle(reply_write.h);
  reply_write.h = nullptr;

  // The request is written by a thread of its own: a worker that dies
  // before reading it all only ends the write.
  std::thread feed([&request, &request_write] {
    for (std::size_t done = 0; done < request.size();) {
      DWORD n = 0;
      const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(request.size() - done, 1 << 20));
      if (!WriteFile(request_write.h, request.data() + done, chunk, &n, nullptr) || n == 0) break;
      done += n;
    }
    CloseHandle(request_write.h);
    request_write.h = nullptr;
  });

  WorkerOutcome out;
  std::string data;
  const auto drain = [&] {
    for (DWORD available = 0; PeekNamedPipe(reply_read.h, nullptr, 0, nullptr, &available, nullptr) && available;) {
      std::string chunk(available, '\0');
      DWORD n = 0;
      if (!ReadFile(reply_read.h, chunk.data(), available, &n, nullptr) || n == 0) break;
      data.append(chunk.data(), n);
    }
  };
  for (;;) {
    const DWORD waited = WaitForSingleObject(process.h, 10);
    drain();
    if (waited != WAIT_TIMEOUT) break;
    if (cancel && cancel->load() && !out.cancelled) {
      out.cancelled = true;
      job.terminate();  // the worker and every command it runs
    }
  }
  drain();  // what it wrote before it ended is all in the pipe now
  feed.join();
  if (auto reply = unframe_reply(data)) {
    out.reply = std::move(*reply);
    out.answered = true;
  }
  DWORD code = 0;
  GetExitCodeProcess(process.h, &code);
  out.end = windows::end_of(code);
  return out;
}

namespace {

// A worker leaves stopping to the build, which ends its whole job.
BOOL WINAPI ignore_console_event(DWORD) { return TRUE; }

}  // namespace

[[noreturn]] void serve_as_worker(const std::function<std::string(const std::string&)>& serve) {
  const std::wstring channel = [] {
    wchar_t buffer[64] = {};
    const DWORD n = GetEnvironmentVariableW(kChannelVariable, buffer, 64);
    return n > 0 && n < 64 ? std::wstring(buffer, n) : std::wstring();
  }();
  const auto colon = channel.find(L':');
  if (colon == std::wstring::npos) {
    std::cerr << "winml-make: error: " << kWorkerArgument << " is how a build starts its workers; it is not a command\n";
    std::_Exit(2);
  }
  HANDLE request_read = reinterpret_cast<HANDLE>(static_cast<std::uintptr_t>(std::stoull(channel.substr(0, colon))));
  HANDLE reply_write = reinterpret_cast<HANDLE>(static_cast<std::uintptr_t>(std::stoull(channel.substr(colon + 1))));
  SetEnvironmentVariableW(kChannelVariable, nullptr);  // not for the commands a stage runs
  SetConsoleCtrlHandler(ignore_console_event, TRUE);
  // A crash ends the worker with its exception code, at once: no error
  // dialog waits for a click on a build machine.
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);

  std::string request;
  char buffer[65536];
  for (DWORD n = 0; ReadFile(request_read, buffer, sizeof buffer, &n, nullptr) && n > 0;)
    request.append(buffer, n);
  CloseHandle(request_read);
  const std::string reply = serve(request);
  const std::string framed = frame_reply(reply);
  bool whole = true;
  for (std::size_t done = 0; done < framed.size();) {
    DWORD n = 0;
    if (!WriteFile(reply_write, framed.data() + done, static_cast<DWORD>(std::min<std::size_t>(framed.size() - done, 1 << 20)),
                   &n, nullptr) ||
        n == 0) {
      whole = false;
      break;
    }
    done += n;
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  // Without static destructors or atexit handlers, as on POSIX.
  std::_Exit(whole ? 0 : 126);
}

}  // namespace winml

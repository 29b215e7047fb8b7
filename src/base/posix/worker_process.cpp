#include "base/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string_view>

#include "base/child_processes.h"
#include "base/error.h"
#include "base/posix/child_groups.h"
#include "base/thread_owned.h"
#include "base/worker_framing.h"

namespace winml {

namespace {

// The worker's end of its channel: a socket pair, requests in, replies out.
constexpr int kChannelFd = 3;

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The child between fork and exec: async-signal-safe calls only (another
// thread may have held any lock at the fork, the allocator's included).
[[noreturn]] void exec_worker(char* const argv[], int channel, pid_t parent, bool own_group) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);       // kept across exec
  if (::getppid() != parent) ::_exit(127);  // the parent died before the call above
  // The leader of a group of its own: a stop ends it with every command it runs.
  if (own_group) ::setpgid(0, 0);
  // Moved above kChannelFd first, so that placing it cannot close anything it needs.
  const int c = ::fcntl(channel, F_DUPFD, kChannelFd + 1);
  if (c < 0 || ::dup2(c, kChannelFd) < 0) ::_exit(127);
  // Nothing else of the build's (lock files, other workers' channels).
  ::close_range(kChannelFd + 1, ~0U, 0);
  // A worker stops at once on SIGINT and SIGTERM, whatever the build did with them.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s : {SIGINT, SIGTERM, SIGPIPE}) ::sigaction(s, &dfl, nullptr);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve("/proc/self/exe", argv, environ);
  ::_exit(127);
}

// This program's path, for the worker's argv[0] (what ps shows).
const std::string& program_path() {
  static const std::string path = [] {
    char buffer[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string("winml-make");
  }();
  return path;
}

// Writes all of `data`, waiting while the channel is full; false when a
// write fails first (the other side is gone). Never raises SIGPIPE: a
// worker that died is an outcome, not the build's end.
bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
      continue;
    }
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// A started worker, as its parent holds it.
struct Worker {
  pid_t pid = -1;
  int channel = -1;  // our end of the socket pair
  int ended = -1;    // a pidfd, readable once it has ended (-1 on an old kernel)
  bool own_group = false;
  bool reused = false;
};

// Ends a worker this process no longer needs and reaps it. (An idle worker
// holds nothing: SIGKILL is as good as a goodbye, and does not wait on it.)
void dismiss(Worker& w) {
  ::kill(w.pid, SIGKILL);
  int status = 0;
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {}
  for (int fd : {w.channel, w.ended})
    if (fd >= 0) ::close(fd);
}

bool has_ended(const Worker& w) {
  if (w.ended >= 0) {
    pollfd p{w.ended, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
  }
  return ::kill(w.pid, 0) != 0;
}

// The idle worker of a thread, kept between its requests (base/thread_owned.h;
// the main thread's ends with the process: PR_SET_PDEATHSIG).
struct Slot {
  std::optional<Worker> idle;
  ~Slot() {
    if (idle) dismiss(*idle);
  }
};

Worker start_worker() {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    throw BuildError(errno_text("cannot create a worker's channel"));
  Fd ours{pair[0]}, theirs{pair[1]};
  std::string program = program_path(), argument = kWorkerArgument;
  char* const argv[] = {program.data(), argument.data(), nullptr};
  const pid_t parent = ::getpid();
  const bool own_group = posix::child_leads_group();
  const pid_t pid = ::fork();
  if (pid < 0) throw BuildError(errno_text("cannot start a worker process"));
  if (pid == 0) exec_worker(argv, theirs.fd, parent, own_group);
  // (Also here: the group must exist before a stop can signal it.)
  if (own_group) ::setpgid(pid, pid);
  Worker w{.pid = pid, .channel = ours.fd, .own_group = own_group};
  ours.fd = -1;
  ::fcntl(w.channel, F_SETFL, O_NONBLOCK);
  // Readable when the worker has ended. Another worker forked meanwhile
  // holds a copy of our channel's other end until it execs, so the
  // channel's end of file is no sign of it.
  w.ended = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  return w;
}

// This thread's idle worker if it is still there, else a new one.
Worker take_worker() {
  Slot& slot = thread_owned<Slot>();
  if (slot.idle) {
    Worker w = *slot.idle;
    slot.idle.reset();
    if (!has_ended(w)) {
      w.reused = true;
      return w;
    }
    dismiss(w);
  }
  return start_worker();
}

// What waiting on a worker gave: what it sent, whether it was stopped, and
// how it ended (nothing when it answered and serves again).
struct Waited {
  ReplyBuffer replies;
  bool cancelled = false;
  std::optional<int> status;
};

// Waits until the worker has answered and serves again, or has ended; once
// *cancel turns true, stops it (SIGTERM to its group, SIGKILL 5 s later).
Waited wait_for(const Worker& w, const std::atomic<bool>* cancel) {
  Waited out;
  using Clock = std::chrono::steady_clock;
  constexpr auto kGrace = std::chrono::seconds(5);
  std::optional<Clock::time_point> terminated_at;
  const auto check_cancel = [&] {
    if (!cancel || !cancel->load()) return;
    out.cancelled = true;
    if (!terminated_at) {
      posix::signal_child(w.pid, w.own_group, SIGTERM);
      terminated_at = Clock::now();
    } else if (Clock::now() - *terminated_at > kGrace) {
      posix::signal_child(w.pid, w.own_group, SIGKILL);
    }
  };
  char buffer[65536];
  const auto drain = [&] {
    for (;;) {
      const ssize_t n = ::read(w.channel, buffer, sizeof buffer);
      if (n > 0) out.replies.add(buffer, static_cast<std::size_t>(n));
      else if (n < 0 && errno == EINTR) continue;
      else return;  // nothing more now (EAGAIN) or ever (0)
    }
  };
  for (int status = 0;;) {
    pollfd p[2] = {{w.channel, POLLIN, 0}, {w.ended, POLLIN, 0}};
    // Without a pidfd (an old kernel), look at the worker every 10 ms.
    const int timeout = w.ended >= 0 && !cancel ? -1 : (w.ended >= 0 ? 50 : 10);
    if (::poll(p, w.ended >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
      throw BuildError(errno_text("waiting for a worker process"));
    drain();
    check_cancel();
    if (out.replies.serves_again() && !out.cancelled) return out;
    const pid_t done = ::waitpid(w.pid, &status, WNOHANG);
    if (done == w.pid) {
      drain();  // what it wrote before it ended is all in the channel now
      out.status = status;
      return out;
    }
    if (done < 0 && errno != EINTR) throw BuildError(errno_text("waiting for a worker process"));
  }
}

}  // namespace

WorkerOutcome run_in_worker(const std::string& request, const std::atomic<bool>* cancel) {
  Worker w = take_worker();
  // A worker found gone when handed the request never saw it: another
  // takes it. (One that goes while running it is that request's outcome.)
  if (!send_all(w.channel, frame(request)) && w.reused) {
    dismiss(w);
    w = start_worker();
    send_all(w.channel, frame(request));  // (a new one that ends at once: wait_for says how)
  }
  posix::remember_child(w.pid, w.own_group);
  struct Forget {
    pid_t pid;
    ~Forget() { posix::forget_child(pid); }
  } forget{w.pid};

  Waited waited = wait_for(w, cancel);
  WorkerOutcome out{.cancelled = waited.cancelled};
  if (auto reply = waited.replies.take()) {
    out.reply = std::move(reply->answer);
    out.answered = true;
  }
  if (!waited.status) {
    // It waits for the next request: this thread keeps it.
    out.end = {.exited = true, .code = 0};
    if (worker_reuse_enabled()) thread_owned<Slot>().idle = w;
    else dismiss(w);
    return out;
  }
  for (int fd : {w.channel, w.ended})
    if (fd >= 0) ::close(fd);
  // A stopped worker's commands end with it (they are in its group).
  if (out.cancelled && w.own_group) ::kill(-w.pid, SIGKILL);
  const int status = *waited.status;
  out.end.exited = WIFEXITED(status);
  out.end.code = out.end.exited ? WEXITSTATUS(status) : -1;
  out.end.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return out;
}

[[noreturn]] void serve_as_worker(const std::function<WorkerAnswer(const std::string&)>& serve) {
  if (::fcntl(kChannelFd, F_GETFD) < 0) {
    std::cerr << "winml-make: error: " << kWorkerArgument
              << " is how a build starts its workers; it is not a command\n";
    ::_exit(2);
  }
  // The commands a stage runs stay in this worker's group, which a stop ends whole.
  keep_children_in_own_group();
  serve_requests(
      [](char* buffer, std::size_t size) {
        for (;;) {
          const ssize_t n = ::read(kChannelFd, buffer, size);
          if (n >= 0 || errno != EINTR) return static_cast<long long>(n);
        }
      },
      [](std::string_view data) { return send_all(kChannelFd, data); }, serve);
}

}  // namespace winml

#include "base/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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
#include "base/worker_framing.h"

namespace winml {

namespace {

// Where the worker finds its request and writes its answer.
constexpr int kRequestFd = 3;
constexpr int kReplyFd = 4;

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The child between fork and exec: async-signal-safe calls only (another
// thread may have held any lock at the fork, the allocator's included).
[[noreturn]] void exec_worker(char* const argv[], int request, int reply, pid_t parent, bool own_group) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // kept across exec
  if (::getppid() != parent) ::_exit(127);  // the parent died before the call above
  // The leader of a group of its own: a stop ends it with every command it runs.
  if (own_group) ::setpgid(0, 0);
  // Both moved above kReplyFd first, so that placing one cannot close the other.
  const int r = ::fcntl(request, F_DUPFD, kReplyFd + 1);
  const int w = ::fcntl(reply, F_DUPFD, kReplyFd + 1);
  if (r < 0 || w < 0 || ::dup2(r, kRequestFd) < 0 || ::dup2(w, kReplyFd) < 0) ::_exit(127);
  // Nothing else of the build's (lock files, other workers' channels).
  for (int fd : {r, w}) ::close(fd);
  ::close_range(kReplyFd + 1, ~0U, 0);
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

// Writes all of `data`; false when a write fails first.
bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// The request in a memory file: the worker reads it at its own pace, and a
// worker that dies before reading cannot block or signal the build.
int request_file(const std::string& request) {
  const int fd = ::memfd_create("winml-worker-request", MFD_CLOEXEC);
  if (fd < 0 || !write_all(fd, request)) {
    const std::string why = errno_text("cannot hand a worker its request");  // before close() sets errno
    if (fd >= 0) ::close(fd);
    throw BuildError(why);
  }
  return fd;
}

}  // namespace

WorkerOutcome run_in_worker(const std::string& request, const std::atomic<bool>* cancel) {
  Fd request_fd{request_file(request)};
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw BuildError(errno_text("cannot create a worker's channel"));
  Fd ours{pipe_fds[0]}, theirs{pipe_fds[1]};
  std::string program = program_path(), argument = kWorkerArgument;
  char* const argv[] = {program.data(), argument.data(), nullptr};
  const pid_t parent = ::getpid();
  const bool own_group = posix::child_leads_group();
  const pid_t pid = ::fork();
  if (pid < 0) throw BuildError(errno_text("cannot start a worker process"));
  if (pid == 0) exec_worker(argv, request_fd.fd, theirs.fd, parent, own_group);
  // (Also here: the group must exist before a stop can signal it.)
  if (own_group) ::setpgid(pid, pid);
  posix::remember_child(pid, own_group);
  struct Forget {
    pid_t pid;
    ~Forget() { posix::forget_child(pid); }
  } forget{pid};
  ::close(theirs.fd);
  theirs.fd = -1;
  ::fcntl(ours.fd, F_SETFL, O_NONBLOCK);
  // Readable when the worker has ended. Another worker forked meanwhile holds
  // a copy of our channel's write end until it execs, so the channel's end of
  // file is no sign of it.
  Fd ended{static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))};

  WorkerOutcome out;
  using Clock = std::chrono::steady_clock;
  constexpr auto kGrace = std::chrono::seconds(5);
  std::optional<Clock::time_point> terminated_at;
  const auto check_cancel = [&] {
    if (!cancel || !cancel->load()) return;
    out.cancelled = true;
    if (!terminated_at) {
      posix::signal_child(pid, own_group, SIGTERM);
      terminated_at = Clock::now();
    } else if (Clock::now() - *terminated_at > kGrace) {
      posix::signal_child(pid, own_group, SIGKILL);
    }
  };
  std::string data;
  char buffer[65536];
  const auto drain = [&] {
    for (;;) {
      const ssize_t n = ::read(ours.fd, buffer, sizeof buffer);
      if (n > 0) data.append(buffer, static_cast<std::size_t>(n));
      else if (n < 0 && errno == EINTR) continue;
      else return;  // nothing more now (EAGAIN) or ever (0)
    }
  };
  int status = 0;
  for (;;) {
    pollfd p[2] = {{ours.fd, POLLIN, 0}, {ended.fd, POLLIN, 0}};
    // Without a pidfd (an old kernel), look at the worker every 10 ms.
    const int timeout = ended.fd >= 0 && !cancel ? -1 : (ended.fd >= 0 ? 50 : 10);
    if (::poll(p, ended.fd >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
      throw BuildError(errno_text("waiting for a worker process"));
    drain();
    check_cancel();
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw BuildError(errno_text("waiting for a worker process"));
  }
  drain();  // what it wrote before it ended is all in the pipe now
  // A stopped worker's commands end with it (they are in its group).
  if (out.cancelled && own_group) ::kill(-pid, SIGKILL);
  if (auto reply = unframe_reply(data)) {
    out.reply = std::move(*reply);
    out.answered = true;
  }
  out.end.exited = WIFEXITED(status);
  out.end.code = out.end.exited ? WEXITSTATUS(status) : -1;
  out.end.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return out;
}

[[noreturn]] void serve_as_worker(const std::function<std::string(const std::string&)>& serve) {
  if (::fcntl(kRequestFd, F_GETFD) < 0 || ::fcntl(kReplyFd, F_GETFD) < 0) {
    std::cerr << "winml-make: error: " << kWorkerArgument << " is how a build starts its workers; it is not a command\n";
    ::_exit(2);
  }
  std::string request;
  char buffer[65536];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(kRequestFd, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ::_exit(125);
    if (n == 0) break;
    request.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
  ::close(kRequestFd);
  // The commands a stage runs stay in this worker's group, which a stop ends whole.
  keep_children_in_own_group();
  const std::string reply = serve(request);
  const bool whole = write_all(kReplyFd, frame_reply(reply));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(whole ? 0 : 126);
}

}  // namespace winml

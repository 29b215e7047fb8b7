#include "base/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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

#include "base/error.h"

namespace winml {

namespace {

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The child's whole life: run, send the reply, exit. Never returns.
[[noreturn]] void be_worker(const std::function<std::string()>& work, int channel, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before the call above
  // The build's handlers only set its flag; a worker stops at once instead.
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  const std::string reply = work();
  // A length prefix: a reply cut short (the worker killed while sending) is
  // never taken for a whole one.
  const std::string framed = std::to_string(reply.size()) + "\n" + reply;
  std::string_view rest = framed;
  while (!rest.empty()) {
    const ssize_t n = ::write(channel, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(rest.empty() ? 0 : 126);
}

// Splits "<size>\n<reply>"; nullopt unless it is whole.
std::optional<std::string> unframe(const std::string& data) {
  const auto eol = data.find('\n');
  if (eol == std::string::npos || eol == 0 || eol > 20) return std::nullopt;
  std::size_t size = 0;
  for (std::size_t i = 0; i < eol; ++i) {
    if (data[i] < '0' || data[i] > '9') return std::nullopt;
    size = size * 10 + static_cast<std::size_t>(data[i] - '0');
  }
  if (data.size() - eol - 1 != size) return std::nullopt;
  return data.substr(eol + 1);
}

}  // namespace

WorkerOutcome run_in_worker(const std::function<std::string()>& work, const std::atomic<bool>* cancel) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw BuildError(errno_text("cannot create a worker's channel"));
  Fd ours{pipe_fds[0]}, theirs{pipe_fds[1]};
  // Output still buffered here would otherwise be written twice.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw BuildError(errno_text("cannot start a worker process"));
  if (pid == 0) {
    ::close(ours.fd);
    be_worker(work, theirs.fd, parent);
  }
  ::close(theirs.fd);
  theirs.fd = -1;
  ::fcntl(ours.fd, F_SETFL, O_NONBLOCK);
  // Readable when the worker has ended. Other workers forked meanwhile hold
  // copies of our channel's write end, so its end of file is no sign of it.
  Fd ended{static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))};

  WorkerOutcome out;
  using Clock = std::chrono::steady_clock;
  constexpr auto kGrace = std::chrono::seconds(5);
  std::optional<Clock::time_point> terminated_at;
  const auto check_cancel = [&] {
    if (!cancel || !cancel->load()) return;
    out.cancelled = true;
    if (!terminated_at) {
      ::kill(pid, SIGTERM);
      terminated_at = Clock::now();
    } else if (Clock::now() - *terminated_at > kGrace) {
      ::kill(pid, SIGKILL);
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
  if (auto reply = unframe(data)) {
    out.reply = std::move(*reply);
    out.answered = true;
  }
  out.exited = WIFEXITED(status);
  out.exit_code = out.exited ? WEXITSTATUS(status) : -1;
  out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return out;
}

std::string describe_signal(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  const char* text = ::sigdescr_np(signal);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
  return text ? name + " (" + text + ")" : name;
}

}  // namespace winml

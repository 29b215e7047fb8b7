#include "base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "base/posix/child_groups.h"

namespace winml {

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close(int end) {
    if (fd[end] >= 0) ::close(fd[end]);
    fd[end] = -1;
  }
};

// What the child does between fork and exec: async-signal-safe calls only
// (another thread may have held any lock at the fork, the allocator's
// included), everything prepared by the parent.
struct ChildSetup {
  const char* program;
  char* const* argv;
  char* const* envp;
  const char* cwd;       // null: inherit
  const char* log_file;  // null: inherit stdout and stderr
  int in, out, err;      // pipes for stdin, stdout, stderr; -1: none
  int report;            // where errno goes when something fails before the exec
  pid_t parent;
  bool own_group;
};

[[noreturn]] void report_and_exit(int report) {
  const int e = errno;
  (void)!::write(report, &e, sizeof e);
  ::_exit(127);
}

[[noreturn]] void exec_child(const ChildSetup& c) {
  const auto fail = [&c] { report_and_exit(c.report); };
  // It ends with the process (the worker) that started it, even when that
  // one is killed: a killed build leaves no command running.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != c.parent) ::_exit(127);  // the parent died before the call above
  if (c.own_group) ::setpgid(0, 0);
  const int in = c.in >= 0 ? c.in : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (in < 0 || ::dup2(in, 0) < 0) fail();
  if (c.log_file) {
    const int log = ::open(c.log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log < 0 || ::dup2(log, 1) < 0 || ::dup2(log, 2) < 0) fail();
  }
  if (c.out >= 0 && ::dup2(c.out, 1) < 0) fail();
  if (c.err >= 0 && ::dup2(c.err, 2) < 0) fail();
  if (c.cwd && ::chdir(c.cwd) != 0) fail();
  // The default action for SIGPIPE and the stop signals, whatever this
  // process does with them; nothing blocked.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &dfl, nullptr);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(c.program, c.argv, c.envp);
  report_and_exit(c.report);
}

ProcessEnd end_of(int status) {
  ProcessEnd e;
  e.exited = WIFEXITED(status);
  e.code = e.exited ? WEXITSTATUS(status) : -1;
  e.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return e;
}

// The pipes between this process and the command, fed and drained at once
// (a big output fills a pipe while its input is still being written).
struct Streams {
  Pipe in, out, err;
  const std::string* input = nullptr;
  std::string* output = nullptr;
  std::string* errors = nullptr;
  std::size_t written = 0;

  bool any_open() const { return in.fd[1] >= 0 || out.fd[0] >= 0 || err.fd[0] >= 0; }

  // One round: waits up to `timeout_ms` for a pipe to be ready and serves it.
  void pump(int timeout_ms) {
    pollfd fds[3];
    int n = 0;
    if (in.fd[1] >= 0) fds[n++] = {in.fd[1], POLLOUT, 0};
    if (out.fd[0] >= 0) fds[n++] = {out.fd[0], POLLIN, 0};
    if (err.fd[0] >= 0) fds[n++] = {err.fd[0], POLLIN, 0};
    if (n == 0 || ::poll(fds, n, timeout_ms) <= 0) return;
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in.fd[1]) {
        const ssize_t w = ::write(in.fd[1], input->data() + written, input->size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        // EPIPE: the command stopped reading; its output says why.
        if ((w < 0 && errno != EINTR && errno != EAGAIN) || written == input->size()) in.close(1);
        continue;
      }
      Pipe& p = fds[i].fd == out.fd[0] ? out : err;
      char buf[65536];
      const ssize_t r = ::read(p.fd[0], buf, sizeof buf);
      if (r > 0) (&p == &out ? *output : *errors).append(buf, static_cast<std::size_t>(r));
      else if (r == 0 || errno != EINTR) p.close(0);
    }
  }
};

}  // namespace

std::filesystem::path find_program(const std::string& name) {
  // A name with a folder is used as it is.
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : std::string();
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    std::error_code ec;
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate, ec)) return candidate;
    start = end + 1;
  }
  return {};
}

namespace {

// execve's arguments, with the strings they point into.
struct ExecArgs {
  std::string program;
  std::vector<std::string> env_strings, argv;
  std::vector<char*> envp, args;
};

// A program named without a folder is looked up in this process's PATH
// (the child's clean environment need not have one). False when not found.
bool prepare_exec(const ProcessSpec& spec, ExecArgs& e) {
  e.program = spec.argv[0].find('/') != std::string::npos ? spec.argv[0] : find_program(spec.argv[0]).string();
  if (e.program.empty()) return false;
  for (const auto& [k, v] : spec.env) e.env_strings.push_back(k + "=" + v);
  for (auto& s : e.env_strings) e.envp.push_back(s.data());
  e.envp.push_back(nullptr);
  e.argv = spec.argv;
  for (auto& a : e.argv) e.args.push_back(a.data());
  e.args.push_back(nullptr);
  return true;
}

// Forks and execs the command; its pid, or -1 with r.error set (the fork, or
// the exec as the child reported it through `report`).
pid_t start_child(const ProcessSpec& spec, ExecArgs& e, Streams& streams, bool own_group, ProcessResult& r) {
  Pipe report;  // the child's errno when exec fails; closed unread when it succeeds
  if (!report.open()) {
    r.error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return -1;
  }
  const ChildSetup setup{.program = e.program.c_str(),
                         .argv = e.args.data(),
                         .envp = e.envp.data(),
                         .cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str(),
                         .log_file = spec.log_file.empty() ? nullptr : spec.log_file.c_str(),
                         .in = spec.input ? streams.in.fd[0] : -1,
                         .out = spec.output ? streams.out.fd[1] : -1,
                         .err = spec.errors ? streams.err.fd[1] : -1,
                         .report = report.fd[1],
                         .parent = ::getpid(),
                         .own_group = own_group};
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.error = std::string("cannot start a process: ") + std::strerror(errno);
    return -1;
  }
  if (pid == 0) exec_child(setup);
  if (own_group) ::setpgid(pid, pid);  // (also here: the group must exist before a stop can signal it)
  report.close(1);
  int child_errno = 0;
  ssize_t got;
  while ((got = ::read(report.fd[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {}
  if (got == static_cast<ssize_t>(sizeof child_errno)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    r.error = "cannot execute '" + spec.argv[0] + "': " + std::strerror(child_errno);
    return -1;
  }
  return pid;
}

// Waits for the command, feeding and draining its pipes; once *cancel turns
// true, sends SIGTERM to its group, and SIGKILL when it is still running
// after the grace period. Its wait status, or nothing with r.error set.
std::optional<int> wait_for_command(pid_t pid, bool own_group, Streams& streams, const std::atomic<bool>* cancel,
                                    ProcessResult& r) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kGrace = std::chrono::seconds(5);
  std::optional<Clock::time_point> terminated_at;
  int status = 0;
  for (;;) {
    if (streams.any_open()) streams.pump(20);
    // Nothing to feed, drain or watch for: block until it ends.
    const int how = streams.any_open() || cancel ? WNOHANG : 0;
    const pid_t done = ::waitpid(pid, &status, how);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) {
      r.error = std::string("waitpid failed: ") + std::strerror(errno);
      return std::nullopt;
    }
    if (cancel && cancel->load()) {
      if (!terminated_at) {
        posix::signal_child(pid, own_group, SIGTERM);
        terminated_at = Clock::now();
      } else if (Clock::now() - *terminated_at > kGrace) {
        posix::signal_child(pid, own_group, SIGKILL);
      }
    }
    if (!streams.any_open() && how == WNOHANG) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// What it wrote before it ended (a grandchild may still hold the pipes:
// read what is there, do not wait for their end).
void read_what_is_left(Streams& streams, const ProcessSpec& spec) {
  const auto received = [&] {
    return (spec.output ? spec.output->size() : 0) + (spec.errors ? spec.errors->size() : 0);
  };
  while (streams.out.fd[0] >= 0 || streams.err.fd[0] >= 0) {
    const std::size_t before_size = received();
    streams.in.close(1);
    streams.pump(0);
    if (received() == before_size) break;
  }
}

// A write to a command that stopped reading fails with EPIPE instead of
// killing this process, while it lives.
class IgnoredSigpipe {
 public:
  explicit IgnoredSigpipe(bool active) : active_(active) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    if (active_) ::sigaction(SIGPIPE, &ignore, &before_);
  }
  ~IgnoredSigpipe() {
    if (active_) ::sigaction(SIGPIPE, &before_, nullptr);
  }
  IgnoredSigpipe(const IgnoredSigpipe&) = delete;
  IgnoredSigpipe& operator=(const IgnoredSigpipe&) = delete;

 private:
  bool active_;
  struct sigaction before_ {};
};

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult r;
  if (spec.argv.empty()) {
    r.error = "empty command";
    return r;
  }
  Streams streams{.input = spec.input, .output = spec.output, .errors = spec.errors};
  if ((spec.input && !streams.in.open()) || (spec.output && !streams.out.open()) ||
      (spec.errors && !streams.err.open())) {
    r.error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return r;
  }
  ExecArgs exec;
  if (!prepare_exec(spec, exec)) {
    r.error = "cannot execute '" + spec.argv[0] + "': " + std::strerror(ENOENT);
    return r;
  }
  // Its own process group (unless this process is a worker, whose group is
  // ended whole).
  const bool own_group = posix::child_leads_group();
  const IgnoredSigpipe sigpipe(spec.input != nullptr);
  const pid_t pid = start_child(spec, exec, streams, own_group, r);
  if (pid < 0) return r;
  posix::remember_child(pid, own_group);
  r.started = true;
  streams.in.close(0);
  streams.out.close(1);
  streams.err.close(1);
  if (spec.input && spec.input->empty()) streams.in.close(1);

  const std::optional<int> status = wait_for_command(pid, own_group, streams, spec.cancel, r);
  if (status) read_what_is_left(streams, spec);
  posix::forget_child(pid);
  if (!status) return r;
  r.end = end_of(*status);
  r.exit_code = r.end.shell_code();
  return r;
}

}  // namespace winml

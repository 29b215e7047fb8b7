#include "base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
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
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (spec.input) posix_spawn_file_actions_adddup2(&actions, streams.in.fd[0], 0);
  else posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (!spec.log_file.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, spec.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  if (spec.output) posix_spawn_file_actions_adddup2(&actions, streams.out.fd[1], 1);
  if (spec.errors) posix_spawn_file_actions_adddup2(&actions, streams.err.fd[1], 2);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());

  // Its own process group (unless this process is a worker, whose group is
  // ended whole); the default action for SIGPIPE and the stop signals,
  // whatever this process does with them.
  const bool own_group = posix::child_leads_group();
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, s);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  short flags = POSIX_SPAWN_SETSIGDEF;
  if (own_group) {
    posix_spawnattr_setpgroup(&attr, 0);
    flags |= POSIX_SPAWN_SETPGROUP;
  }
  posix_spawnattr_setflags(&attr, flags);

  std::vector<std::string> env_strings;
  for (const auto& [k, v] : spec.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv = spec.argv;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);

  // A write to a command that stopped reading fails with EPIPE instead of
  // killing this process.
  struct sigaction ignore {}, before {};
  ignore.sa_handler = SIG_IGN;
  if (spec.input) ::sigaction(SIGPIPE, &ignore, &before);
  pid_t pid;
  // posix_spawnp searches the caller's PATH, so the child's clean environment
  // does not need one.
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  struct RestoreSigpipe {
    bool active;
    struct sigaction before;
    ~RestoreSigpipe() {
      if (active) ::sigaction(SIGPIPE, &before, nullptr);
    }
  } restore{spec.input != nullptr, before};
  if (rc != 0) {
    r.error = std::string("cannot execute '") + spec.argv[0] + "': " + std::strerror(rc);
    return r;
  }
  posix::remember_child(pid, own_group);
  r.started = true;
  streams.in.close(0);
  streams.out.close(1);
  streams.err.close(1);
  if (spec.input && spec.input->empty()) streams.in.close(1);

  // Waits for the command; once *cancel turns true, sends SIGTERM to its
  // group, and SIGKILL when it is still running after the grace period.
  using Clock = std::chrono::steady_clock;
  constexpr auto kGrace = std::chrono::seconds(5);
  std::optional<Clock::time_point> terminated_at;
  int status = 0;
  for (;;) {
    if (streams.any_open()) streams.pump(20);
    // Nothing to feed, drain or watch for: block until it ends.
    const int how = streams.any_open() || spec.cancel ? WNOHANG : 0;
    const pid_t done = ::waitpid(pid, &status, how);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      posix::forget_child(pid);
      r.error = std::string("waitpid failed: ") + std::strerror(errno);
      return r;
    }
    if (spec.cancel && spec.cancel->load()) {
      if (!terminated_at) {
        posix::signal_child(pid, own_group, SIGTERM);
        terminated_at = Clock::now();
      } else if (Clock::now() - *terminated_at > kGrace) {
        posix::signal_child(pid, own_group, SIGKILL);
      }
    }
    if (!streams.any_open() && how == WNOHANG) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // What it wrote before it ended (a grandchild may still hold the pipes:
  // read what is there, do not wait for their end).
  while (streams.out.fd[0] >= 0 || streams.err.fd[0] >= 0) {
    const std::size_t before_size = (spec.output ? spec.output->size() : 0) + (spec.errors ? spec.errors->size() : 0);
    streams.in.close(1);
    streams.pump(0);
    if ((spec.output ? spec.output->size() : 0) + (spec.errors ? spec.errors->size() : 0) == before_size) break;
  }
  posix::forget_child(pid);
  r.end = end_of(status);
  r.exit_code = r.end.shell_code();
  return r;
}

}  // namespace winml

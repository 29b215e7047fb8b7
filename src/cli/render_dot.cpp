#include "cli/render_dot.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/error.h"

extern char** environ;

namespace winml::cli {

namespace {

// `dot` on PATH, or empty.
std::string find_dot() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/dot";
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0) throw BuildError(std::string("pipe: ") + std::strerror(errno));
  }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close(int end) {
    if (fd[end] >= 0) ::close(fd[end]);
    fd[end] = -1;
  }
};

}  // namespace

std::string render_svg(const std::string& dot_text) {
  const std::string dot = find_dot();
  if (dot.empty())
    throw InputError(
        "winml-make graph --svg draws through Graphviz's dot, which is not on PATH: install the graphviz package "
        "(Debian: apt install graphviz), or write the DOT text with 'winml-make graph' and render it elsewhere");
  Pipe in, out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  // dot may exit before it has read everything: a write then fails with
  // EPIPE instead of killing this process; dot itself starts with the default.
  struct sigaction ignore = {}, before = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &before);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  char* argv[] = {const_cast<char*>(dot.c_str()), const_cast<char*>("-Tsvg"), nullptr};
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, dot.c_str(), &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  struct RestoreSigpipe {
    struct sigaction before;
    ~RestoreSigpipe() { ::sigaction(SIGPIPE, &before, nullptr); }
  } restore{before};
  if (spawned != 0) throw BuildError("cannot run " + dot + ": " + std::strerror(spawned));
  in.close(0);
  out.close(1);
  err.close(1);
  // Feed and drain at once: a big graph fills both pipes.
  std::string svg, messages;
  std::size_t written = 0;
  if (dot_text.empty()) in.close(1);
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    pollfd fds[3];
    int n = 0;
    if (in.fd[1] >= 0) fds[n++] = {in.fd[1], POLLOUT, 0};
    if (out.fd[0] >= 0) fds[n++] = {out.fd[0], POLLIN, 0};
    if (err.fd[0] >= 0) fds[n++] = {err.fd[0], POLLIN, 0};
    if (::poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in.fd[1]) {
        const ssize_t w = ::write(in.fd[1], dot_text.data() + written, dot_text.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 || written == dot_text.size()) in.close(1);  // EPIPE: dot gave up; its message says why
        continue;
      }
      const int end = fds[i].fd == out.fd[0] ? 0 : 1;
      char buf[65536];
      const ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r > 0) (end == 0 ? svg : messages).append(buf, static_cast<std::size_t>(r));
      else if (r == 0 || errno != EINTR) (end == 0 ? out : err).close(0);
    }
  }
  in.close(1);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw BuildError(dot + " -Tsvg failed" + (messages.empty() ? std::string() : ": " + messages));
  return svg;
}

}  // namespace winml::cli

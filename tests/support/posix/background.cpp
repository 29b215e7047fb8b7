#include "support/project.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace winml::test {

namespace fs = std::filesystem;

Background::Background(const std::vector<std::string>& args, const fs::path& cwd,
                       const std::map<std::string, std::string>& env) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, (capture_ / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, (capture_ / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, with default signal handling, as a shell's
  // foreground job has (a test runner may start tests with SIGINT ignored).
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string s(*e);
    if (!env.count(s.substr(0, s.find('=')))) env_strings.push_back(s);
  }
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<std::string> argv{winml_make_binary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> a, e;
  for (auto& s : argv) a.push_back(s.data());
  a.push_back(nullptr);
  for (auto& s : env_strings) e.push_back(s.data());
  e.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, a[0], &actions, &attr, a.data(), e.data()) != 0) pid = -1;
  pid_ = pid;
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
}

Background::~Background() {
  if (pid_ > 0 && !waited_) {
    ::kill(-pid_, SIGKILL);
    int st;
    ::waitpid(pid_, &st, 0);
  }
}

void Background::signal(int sig) { ::kill(pid_, sig); }

bool Background::signals_arrive(std::string&) { return true; }

void Background::signal_group(int sig) { ::kill(-pid_, sig); }

void Background::kill_group() { ::kill(-pid_, SIGKILL); }

int Background::killed_exit_code() { return 128 + SIGKILL; }

CliResult Background::wait() {
  int status = 0;
  ::waitpid(pid_, &status, 0);
  waited_ = true;
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(capture_ / "out");
  r.err = read_text(capture_ / "err");
  return r;
}

}  // namespace winml::test

#include "base/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>
#include <optional>
#include <thread>

#include "base/error.h"

namespace winml {

namespace {

// Waits for `pid`; once *cancel turns true, sends SIGTERM, and SIGKILL when
// the command is still running after the grace period. False if waitpid fails.
bool wait_for_child(pid_t pid, const std::atomic<bool>* cancel, int& status) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kGrace = std::chrono::seconds(5);
  std::optional<Clock::time_point> terminated_at;
  for (;;) {
    const pid_t done = waitpid(pid, &status, cancel ? WNOHANG : 0);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) return false;
    if (!cancel || !cancel->load()) {
      if (cancel) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    if (!terminated_at) {
      ::kill(pid, SIGTERM);
      terminated_at = Clock::now();
    } else if (Clock::now() - *terminated_at > kGrace) {
      ::kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return false;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult r;
  if (spec.argv.empty()) {
    r.error = "empty command";
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (!spec.log_file.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, spec.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());

  std::vector<std::string> env_strings;
  for (const auto& [k, v] : spec.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv = spec.argv;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);

  pid_t pid;
  // posix_spawnp searches the caller's PATH, so the child's clean environment
  // does not need one.
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.error = std::string("cannot execute '") + spec.argv[0] + "': " + std::strerror(rc);
    return r;
  }
  r.started = true;
  int status = 0;
  if (!wait_for_child(pid, spec.cancel, status)) {
    r.error = std::string("waitpid failed: ") + std::strerror(errno);
    return r;
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::vector<std::string> substitute_placeholders(const std::vector<std::string>& argv,
                                                 const std::map<std::string, std::string>& values,
                                                 const std::string& what) {
  std::vector<std::string> out;
  for (const auto& arg : argv) {
    std::string s;
    for (std::size_t i = 0; i < arg.size();) {
      if (arg[i] == '{') {
        auto close = arg.find('}', i);
        if (close != std::string::npos) {
          std::string name = arg.substr(i + 1, close - i - 1);
          auto it = values.find(name);
          if (it == values.end()) {
            std::string known;
            for (const auto& [k, v] : values) known += (known.empty() ? "{" : ", {") + k + "}";
            throw InputError(what + ": unknown placeholder {" + name + "} in '" + arg + "' (known: " + known + ")");
          }
          s += it->second;
          i = close + 1;
          continue;
        }
      }
      s += arg[i++];
    }
    out.push_back(s);
  }
  return out;
}

std::string tail_lines(const std::filesystem::path& file, std::size_t n) {
  std::ifstream in(file);
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > n) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string quote_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain =
        !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
                          std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

}  // namespace winml

#include "support/processes.h"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace winml::test {

namespace {

// The state letter and parent of /proc/<pid>/stat ("pid (name) S ppid ...").
bool stat_of(long long pid, char& state, long long& parent) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  const auto close = text.rfind(')');
  if (close == std::string::npos || close + 4 > text.size()) return false;
  state = text[close + 2];
  parent = std::stoll(text.substr(close + 4));
  return true;
}

}  // namespace

bool process_running(long long pid) {
  char state = 0;
  long long parent = 0;
  return stat_of(pid, state, parent) && state != 'Z' && state != 'X';
}

long long parent_process(long long pid) {
  char state = 0;
  long long parent = 0;
  return stat_of(pid, state, parent) ? parent : 0;
}

std::vector<long long> child_processes(long long pid) {
  std::vector<long long> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    char state = 0;
    long long parent = 0;
    if (stat_of(std::stoll(name), state, parent) && parent == pid && state != 'Z') out.push_back(std::stoll(name));
  }
  return out;
}

void crash_process(long long pid) { ::kill(static_cast<pid_t>(pid), SIGSEGV); }

}  // namespace winml::test

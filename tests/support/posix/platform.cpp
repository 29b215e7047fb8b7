#include "support/platform.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace winml::test {

bool on_posix() { return true; }

void set_environment_variable(const std::string& name, const std::string& value) {
  ::setenv(name.c_str(), value.c_str(), 1);
}

void unset_environment_variable(const std::string& name) { ::unsetenv(name.c_str()); }

void kill_this_process() {
  ::kill(::getpid(), SIGKILL);
  ::_exit(kKilledExitCode);  // (never reached)
}

bool killed(int exit_status) { return WIFSIGNALED(exit_status) && WTERMSIG(exit_status) == SIGKILL; }

bool mapped_in_this_process(const std::filesystem::path& file) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream s;
  s << maps.rdbuf();
  return s.str().find(file.string()) != std::string::npos;
}

std::filesystem::path a_system_library() { return "/lib/x86_64-linux-gnu/libm.so.6"; }

bool make_symlink(const std::filesystem::path& target, const std::filesystem::path& link, std::string& why) {
  std::error_code ec;
  std::filesystem::create_symlink(target, link, ec);
  if (ec) why = ec.message();
  return !ec;
}

void remove_file(const std::filesystem::path& path) { std::filesystem::remove(path); }

std::filesystem::path a_device() { return "/dev/zero"; }

bool make_fifo(const std::filesystem::path& path, std::string& why) {
  if (::mkfifo(path.c_str(), 0644) == 0) return true;
  why = std::strerror(errno);
  return false;
}

}  // namespace winml::test

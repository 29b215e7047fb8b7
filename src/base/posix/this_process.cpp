#include "base/this_process.h"

#include <string.h>

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "base/process_end.h"

extern char** environ;

namespace winml {

int current_process_id() { return static_cast<int>(::getpid()); }

bool process_is_gone(int pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

std::map<std::string, std::string> environment_variables() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return env;
}

std::optional<std::string> environment_variable(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v ? std::optional<std::string>(v) : std::nullopt;
}

std::vector<std::string> utf8_arguments(int argc, char** argv) { return std::vector<std::string>(argv, argv + argc); }

void prepare_standard_streams() {}

std::uint64_t peak_resident_bytes() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

std::string user_cache_home() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return x;
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache";
  return {};
}

const std::vector<std::string>& user_cache_home_variables() {
  static const std::vector<std::string> names = {"HOME", "XDG_CACHE_HOME"};
  return names;
}

std::string home_directory() {
  const char* h = std::getenv("HOME");
  return h ? h : "";
}

const std::vector<std::string>& home_directory_variables() {
  static const std::vector<std::string> names = {"HOME"};
  return names;
}

std::string describe_signal(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  const char* text = ::sigdescr_np(signal);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
  return text ? name + " (" + text + ")" : name;
}

}  // namespace winml

// The running process as the operating system sees it: its id, its
// environment, its command line in UTF-8 and what it used.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace winml {

int current_process_id();

// No process with this id is running: whatever it left (a temporary named
// after it) is abandoned.
bool process_is_gone(int pid);

// Every environment variable, in UTF-8.
std::map<std::string, std::string> environment_variables();
// One environment variable in UTF-8; nullopt when it is not set. (On Windows
// std::getenv gives the ANSI code page's bytes, and loses what it cannot hold.)
std::optional<std::string> environment_variable(const std::string& name);

// The command line's arguments in UTF-8 (on Windows from the wide command
// line: the ANSI one loses characters outside its code page).
std::vector<std::string> utf8_arguments(int argc, char** argv);

// utf8_arguments as main() hands arguments on: argc and a NULL-ended argv.
class Utf8Arguments {
 public:
  Utf8Arguments(int argc, char** argv);
  int argc() const { return static_cast<int>(text_.size()); }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> text_;
  std::vector<char*> pointers_;
};

// Sets up the standard streams the one way on every system: binary (no CRLF
// for LF on Windows), UTF-8 to a console. Called first by main().
void prepare_standard_streams();

// The most memory this process has held at once (its peak resident set).
std::uint64_t peak_resident_bytes();

// Where this user's caches go: $XDG_CACHE_HOME, else ~/.cache on POSIX;
// %LOCALAPPDATA% on Windows. Empty when the environment names none.
std::string user_cache_home();
// The environment variables user_cache_home() reads.
const std::vector<std::string>& user_cache_home_variables();

// The user's home directory as Python's os.path.expanduser("~") finds it
// from the environment: $HOME on POSIX, %USERPROFILE% on Windows. Empty when
// it is not set.
std::string home_directory();
// The environment variable home_directory() reads.
const std::vector<std::string>& home_directory_variables();

}  // namespace winml

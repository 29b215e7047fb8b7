// Running external commands (export scripts, vendor compilers) the one way the
// tool does it: an explicit argv (no shell), an explicit environment, output
// captured to a log file.
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace winml {

struct ProcessSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in the caller's PATH if it has no '/'
  std::filesystem::path cwd;               // empty: inherit
  std::map<std::string, std::string> env;  // the child's entire environment
  std::filesystem::path log_file;          // stdout and stderr, appended; empty: inherit
  // When it turns true the command is asked to stop (SIGTERM, then SIGKILL
  // after a grace period). The command shares the caller's process group, so
  // a terminal's Ctrl-C reaches it too; but a shell that was between two
  // commands when that signal came goes on with the next one, so the caller
  // cannot rely on the group signal alone.
  const std::atomic<bool>* cancel = nullptr;
};

struct ProcessResult {
  int exit_code = -1;    // exit status, or 128 + signal
  bool started = false;  // false: the program could not be executed (error says why)
  std::string error;
};

ProcessResult run_process(const ProcessSpec& spec);

// Replaces "{name}" in every argument with values[name]. Unknown placeholders
// are an InputError naming `what` (e.g. "[export] command").
std::vector<std::string> substitute_placeholders(const std::vector<std::string>& argv,
                                                 const std::map<std::string, std::string>& values,
                                                 const std::string& what);

// The last `n` lines of a text file (for error messages about failed commands).
std::string tail_lines(const std::filesystem::path& file, std::size_t n);

// Shell-style rendering of an argv, for messages.
std::string quote_command(const std::vector<std::string>& argv);

}  // namespace winml

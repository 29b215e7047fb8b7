// Running external commands (export scripts, vendor compilers, Graphviz) the
// one way the tool does it: an explicit argv (no shell), an explicit
// environment, output captured to a log file or to strings
// (base/posix/subprocess.cpp, base/windows/subprocess.cpp).
//
// A command runs apart from winml-make's own terminal signals (its own
// process group on POSIX, its own job object on Windows), so that a stop
// ends it and everything it started, and never half of it: see
// base/child_processes.h.
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/process_end.h"

namespace winml {

struct ProcessSpec {
  // argv[0] is looked up in the caller's PATH if it names no folder (on
  // Windows with the PATHEXT extensions; a .bat or .cmd runs through cmd.exe).
  std::vector<std::string> argv;
  std::filesystem::path cwd;               // empty: inherit
  // The child's entire environment. On Windows the few variables a process
  // needs to start at all (SystemRoot, SystemDrive, windir) are kept when
  // not given.
  std::map<std::string, std::string> env;
  std::filesystem::path log_file;  // stdout and stderr, appended; empty: inherit (unless captured below)
  const std::string* input = nullptr;  // written to the command's stdin; null: stdin is the null device
  std::string* output = nullptr;       // the command's stdout, captured
  std::string* errors = nullptr;       // the command's stderr, captured
  // When it turns true the command and what it started are asked to stop
  // (POSIX: SIGTERM to its process group, then SIGKILL after a grace
  // period; Windows: its job is terminated).
  const std::atomic<bool>* cancel = nullptr;
};

struct ProcessResult {
  int exit_code = -1;    // exit status, or 128 + signal (ProcessEnd::shell_code)
  bool started = false;  // false: the program could not be executed (error says why)
  std::string error;
  ProcessEnd end;
};

ProcessResult run_process(const ProcessSpec& spec);

// Where `name` is found on this process's PATH (with PATHEXT's extensions on
// Windows); empty when it is not.
std::filesystem::path find_program(const std::string& name);

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

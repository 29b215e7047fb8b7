// Windows only: starting a child process the one way run_process and
// run_in_worker do: CreateProcessW with a quoted command line, only the
// handles named inherited, and the process in a job object of its own that
// kills it, and everything it starts, when the job's last handle closes: a
// killed winml-make leaves no child behind.
#pragma once

#include <windows.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/process_end.h"

namespace winml::windows {

// A job that kills its processes when it is closed or terminated.
class ChildJob {
 public:
  ChildJob();
  ~ChildJob();  // kills whatever still runs in it
  ChildJob(const ChildJob&) = delete;
  ChildJob& operator=(const ChildJob&) = delete;
  bool valid() const { return job_ != nullptr; }
  HANDLE handle() const { return job_; }
  // Ends every process in the job at once, each with kTerminatedStatus.
  void terminate();
  // STATUS_CONTROL_C_EXIT: what a console reports of a process Ctrl-C ended.
  static constexpr DWORD kTerminatedStatus = 0xC000013A;

 private:
  HANDLE job_ = nullptr;
};

struct ChildStart {
  std::wstring application;           // the program's full path
  std::wstring command_line;          // quoted, argv[0] first
  const std::wstring* environment = nullptr;  // a block "k=v\0...\0\0"; null: this process's
  std::wstring cwd;                   // empty: this process's
  HANDLE std_in = nullptr, std_out = nullptr, std_err = nullptr;  // inheritable; null: none
  std::vector<HANDLE> also_inherited;  // other inheritable handles the child gets
};

// Starts the child suspended, puts it in `job`, then lets it run. The
// process handle (close it), or null with `error` set.
HANDLE start_in_job(const ChildStart& start, ChildJob& job, std::string& error);

// How a process ended, from its exit code: NTSTATUS error codes
// (0xC0000000 and up) are exceptions that ended it.
ProcessEnd end_of(DWORD exit_code);

// One argument quoted so that CommandLineToArgvW (and the C runtime) reads it back unchanged.
std::wstring quote_argument(std::wstring_view arg);

// An inheritable handle to the null device, for reading or writing.
HANDLE null_device(bool write);

}  // namespace winml::windows

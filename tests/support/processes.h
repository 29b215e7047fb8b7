// Looking at and ending processes from a test, the same way on every system
// (tests/support/posix/processes.cpp: /proc and signals; windows/: Toolhelp
// and TerminateProcess).
#pragma once

#include <vector>

namespace winml::test {

// Whether a process with this id is still running (not a zombie waiting for its parent).
bool process_running(long long pid);
// The id of the process that started `pid` (0 when it cannot be told).
long long parent_process(long long pid);
// The processes whose parent is `pid`.
std::vector<long long> child_processes(long long pid);
// Ends the process as a crash would: SIGSEGV on POSIX; on Windows
// TerminateProcess with the access violation's code, 0xC0000005, which is
// what the process's parent then sees.
void crash_process(long long pid);

}  // namespace winml::test

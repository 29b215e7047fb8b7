#include "base/this_process.h"

#include <fcntl.h>
#include <io.h>
#include <windows.h>
#include <psapi.h>
#include <shellapi.h>

#include <csignal>
#include <cstdio>

#include "base/process_end.h"

#include "base/windows/wide.h"

namespace winml {

int current_process_id() { return static_cast<int>(GetCurrentProcessId()); }

bool process_is_gone(int pid) {
  if (pid <= 0) return false;
  HANDLE h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
  if (!h) return GetLastError() == ERROR_INVALID_PARAMETER;  // no such process (not: no right to look)
  const bool ended = WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
  CloseHandle(h);
  return ended;
}

std::map<std::string, std::string> environment_variables() {
  std::map<std::string, std::string> env;
  wchar_t* block = GetEnvironmentStringsW();
  if (!block) return env;
  for (const wchar_t* p = block; *p; p += wcslen(p) + 1) {
    const std::string kv = windows::narrow(p);
    // "=C:=C:\dir": the per-drive current directories, not variables.
    const auto eq = kv.find('=', 1);
    if (kv[0] != '=' && eq != std::string::npos) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  FreeEnvironmentStringsW(block);
  return env;
}

std::optional<std::string> environment_variable(const std::string& name) {
  const std::wstring wide_name = windows::widen(name);
  SetLastError(ERROR_SUCCESS);
  DWORD n = GetEnvironmentVariableW(wide_name.c_str(), nullptr, 0);  // the size with its NUL
  if (n == 0) return GetLastError() == ERROR_ENVVAR_NOT_FOUND ? std::nullopt : std::optional<std::string>("");
  std::wstring value(n, L'\0');
  n = GetEnvironmentVariableW(wide_name.c_str(), value.data(), n);
  value.resize(n);
  return windows::narrow(value);
}

std::vector<std::string> utf8_arguments(int argc, char** argv) {
  int n = 0;
  wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &n);
  if (!wide || n != argc) {
    if (wide) LocalFree(wide);
    return std::vector<std::string>(argv, argv + argc);
  }
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(windows::narrow(wide[i]));
  LocalFree(wide);
  return out;
}

void prepare_standard_streams() {
  // LF stays LF: reports, JSON and model bytes written to stdout are the
  // same bytes as on Linux.
  _setmode(_fileno(stdin), _O_BINARY);
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
  SetConsoleOutputCP(CP_UTF8);
}

// Windows ends no process by a signal (a crash is an exception code,
// ProcessEnd::exception); this names the C runtime's few, for completeness.
std::string describe_signal(int signal) {
  switch (signal) {
    case SIGABRT: return "SIGABRT (Aborted)";
    case SIGSEGV: return "SIGSEGV (Segmentation fault)";
    case SIGFPE: return "SIGFPE (Floating point exception)";
    case SIGILL: return "SIGILL (Illegal instruction)";
    case SIGINT: return "SIGINT (Interrupt)";
    case SIGTERM: return "SIGTERM (Terminated)";
    default: return "signal " + std::to_string(signal);
  }
}

std::string user_cache_home() {
  wchar_t buffer[MAX_PATH + 1] = {};
  const DWORD n = GetEnvironmentVariableW(L"LOCALAPPDATA", buffer, MAX_PATH + 1);
  return n > 0 && n <= MAX_PATH ? windows::narrow(std::wstring_view(buffer, n)) : std::string();
}

const std::vector<std::string>& user_cache_home_variables() {
  static const std::vector<std::string> names = {"LOCALAPPDATA"};
  return names;
}

std::string home_directory() { return environment_variable("USERPROFILE").value_or(""); }

const std::vector<std::string>& home_directory_variables() {
  static const std::vector<std::string> names = {"USERPROFILE"};
  return names;
}

std::uint64_t peak_resident_bytes() {
  PROCESS_MEMORY_COUNTERS counters{};
  if (!GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof counters)) return 0;
  return counters.PeakWorkingSetSize;
}

}  // namespace winml

#include <windows.h>

#include <csignal>

#include "base/this_process.h"
#include "base/windows/child_job.h"
#include "base/windows/wide.h"
#include "support/project.h"

namespace winml::test {

namespace fs = std::filesystem;

namespace {

HANDLE capture(const fs::path& file) {
  SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
  return CreateFileW(file.wstring().c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, &inherit,
                     CREATE_ALWAYS, 0, nullptr);
}

}  // namespace

// winml-make in a process group of its own (console events reach it alone)
// and a job of its own (kill_group ends it with every worker and command).
Background::Background(const std::vector<std::string>& args, const fs::path& cwd,
                       const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> all = environment_variables();
  for (const auto& [k, v] : env) all[k] = v;
  std::wstring block;
  for (const auto& [k, v] : all) block += windows::widen(k) + L"=" + windows::widen(v) + L'\0';
  block += L'\0';
  std::wstring command_line = windows::quote_argument(winml_make_binary().wstring());
  for (const auto& a : args) command_line += L" " + windows::quote_argument(windows::widen(a));
  HANDLE out = capture(capture_ / "out"), err = capture(capture_ / "err"), in = windows::null_device(false);
  auto* job = new windows::ChildJob();
  std::string error;
  HANDLE process = windows::start_in_job({.application = winml_make_binary().wstring(),
                                          .command_line = command_line,
                                          .environment = &block,
                                          .cwd = cwd.wstring(),
                                          .std_in = in,
                                          .std_out = out,
                                          .std_err = err},
                                         *job, error);
  for (HANDLE h : {out, err, in}) CloseHandle(h);
  job_ = job;
  process_ = process;
  pid_ = process ? static_cast<long long>(GetProcessId(process)) : -1;
}

Background::~Background() {
  if (process_ && !waited_) {
    static_cast<windows::ChildJob*>(job_)->terminate();
    WaitForSingleObject(process_, INFINITE);
  }
  if (process_) CloseHandle(process_);
  delete static_cast<windows::ChildJob*>(job_);
}

void Background::signal(int) {
  // SIGINT and SIGTERM alike: what a console delivers is Ctrl-C or Ctrl-Break,
  // and only Ctrl-Break reaches a process group of its own.
  GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, static_cast<DWORD>(pid_));
}

bool Background::signals_arrive(std::string& why) {
  // Wine's ntdll exports wine_get_version; Windows' does not.
  if (GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "wine_get_version") == nullptr) return true;
  why = "under Wine, GenerateConsoleCtrlEvent reaches no other process (tests/windows/console_stop.sh sends a "
        "real Ctrl-C in a pseudo-terminal)";
  return false;
}

void Background::signal_group(int sig) { signal(sig); }

void Background::kill_group() { static_cast<windows::ChildJob*>(job_)->terminate(); }

int Background::killed_exit_code() { return windows::end_of(windows::ChildJob::kTerminatedStatus).shell_code(); }

CliResult Background::wait() {
  CliResult r;
  if (process_) {
    WaitForSingleObject(process_, INFINITE);
    DWORD code = 0;
    GetExitCodeProcess(process_, &code);
    r.exit_code = windows::end_of(code).shell_code();
  }
  waited_ = true;
  r.out = read_text(capture_ / "out");
  r.err = read_text(capture_ / "err");
  return r;
}

}  // namespace winml::test

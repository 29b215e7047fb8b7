#include "base/windows/child_job.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "base/child_processes.h"
#include "base/windows/wide.h"

namespace winml {

namespace {

// The jobs of running children, lock-free: the console handler thread walks
// them when a second Ctrl-C ends winml-make at once.
constexpr int kSlots = 256;
std::atomic<HANDLE> g_jobs[kSlots];

void remember_job(HANDLE job) {
  for (auto& slot : g_jobs) {
    HANDLE empty = nullptr;
    if (slot.compare_exchange_strong(empty, job)) return;
  }
}

void forget_job(HANDLE job) {
  for (auto& slot : g_jobs) {
    HANDLE v = job;
    if (slot.compare_exchange_strong(v, nullptr)) return;
  }
}

}  // namespace

void end_all_children_now() {
  for (auto& slot : g_jobs) {
    HANDLE job = slot.load();
    if (job) TerminateJobObject(job, windows::ChildJob::kTerminatedStatus);
  }
}

// A child's job nests in its parent's job: ending the parent's ends it.
void keep_children_in_own_group() {}

namespace windows {

ChildJob::ChildJob() : job_(CreateJobObjectW(nullptr, nullptr)) {
  if (!job_) return;
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  if (!SetInformationJobObject(job_, JobObjectExtendedLimitInformation, &limits, sizeof limits)) {
    CloseHandle(job_);
    job_ = nullptr;
    return;
  }
  remember_job(job_);
}

ChildJob::~ChildJob() {
  if (!job_) return;
  forget_job(job_);
  CloseHandle(job_);
}

void ChildJob::terminate() {
  if (job_) TerminateJobObject(job_, kTerminatedStatus);
}

namespace {

// The handles the child inherits: its standard ones and those named, once each.
std::vector<HANDLE> inherited_handles(const ChildStart& start) {
  std::vector<HANDLE> inherited;
  for (HANDLE h : {start.std_in, start.std_out, start.std_err})
    if (h && std::find(inherited.begin(), inherited.end(), h) == inherited.end()) inherited.push_back(h);
  for (HANDLE h : start.also_inherited)
    if (h && std::find(inherited.begin(), inherited.end(), h) == inherited.end()) inherited.push_back(h);
  return inherited;
}

// A thread attribute list naming the handles the child may inherit: only
// those reach it (another thread starting another child at the same moment
// must not hand it this one's pipes).
class HandleList {
 public:
  explicit HandleList(std::vector<HANDLE>& handles) {
    SIZE_T size = 0;
    InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
    storage_ = std::make_unique<char[]>(size);
    auto* list = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(storage_.get());
    if (!InitializeProcThreadAttributeList(list, 1, 0, &size)) return;
    list_ = list;
    if (!handles.empty())
      UpdateProcThreadAttribute(list_, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, handles.data(),
                                handles.size() * sizeof(HANDLE), nullptr, nullptr);
  }
  ~HandleList() {
    if (list_) DeleteProcThreadAttributeList(list_);
  }
  HandleList(const HandleList&) = delete;
  HandleList& operator=(const HandleList&) = delete;
  LPPROC_THREAD_ATTRIBUTE_LIST get() const { return list_; }

 private:
  std::unique_ptr<char[]> storage_;
  LPPROC_THREAD_ATTRIBUTE_LIST list_ = nullptr;
};

// Wine now and then fails a process creation with ERROR_INTERNAL_ERROR when
// the new process's loader did not report back; nothing was started, and
// the same call succeeds again. A few tries, then the error.
constexpr int kCreateRetries = 4;

// Creates the child suspended, in a process group of its own (the console's
// Ctrl-C reaches winml-make, which ends its children itself). 0, or the error.
DWORD create_suspended(const ChildStart& start, bool inherit, STARTUPINFOEXW& info, PROCESS_INFORMATION& process) {
  const DWORD flags =
      CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT | CREATE_NEW_PROCESS_GROUP;
  DWORD error = 0;
  for (int attempt = 0; attempt <= kCreateRetries; ++attempt) {
    if (attempt > 0) Sleep(20 * attempt);
    std::wstring command_line = start.command_line;  // CreateProcessW may write into it
    if (CreateProcessW(start.application.c_str(), command_line.data(), nullptr, nullptr, inherit ? TRUE : FALSE, flags,
                       start.environment ? const_cast<wchar_t*>(start.environment->c_str()) : nullptr,
                       start.cwd.empty() ? nullptr : start.cwd.c_str(), &info.StartupInfo, &process))
      return 0;
    error = GetLastError();
    if (error != ERROR_INTERNAL_ERROR) break;
  }
  return error;
}

}  // namespace

HANDLE start_in_job(const ChildStart& start, ChildJob& job, std::string& error) {
  if (!job.valid()) {
    error = "cannot create a job object: " + error_text(GetLastError());
    return nullptr;
  }
  std::vector<HANDLE> inherited = inherited_handles(start);
  const HandleList handles(inherited);
  if (!handles.get()) {
    error = "cannot start a process: " + error_text(GetLastError());
    return nullptr;
  }
  STARTUPINFOEXW info{};
  info.StartupInfo.cb = sizeof info;
  info.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  info.StartupInfo.hStdInput = start.std_in;
  info.StartupInfo.hStdOutput = start.std_out;
  info.StartupInfo.hStdError = start.std_err;
  info.lpAttributeList = handles.get();
  PROCESS_INFORMATION process{};
  if (const DWORD create_error = create_suspended(start, !inherited.empty(), info, process)) {
    error = error_text(create_error);
    return nullptr;
  }
  if (!AssignProcessToJobObject(job.handle(), process.hProcess)) {
    error = "cannot put the process in a job: " + error_text(GetLastError());
    TerminateProcess(process.hProcess, 1);
    CloseHandle(process.hThread);
    CloseHandle(process.hProcess);
    return nullptr;
  }
  ResumeThread(process.hThread);
  CloseHandle(process.hThread);
  return process.hProcess;
}

ProcessEnd end_of(DWORD exit_code) {
  ProcessEnd e;
  if (exit_code >= 0xC0000000u) {
    e.exception = exit_code;
  } else {
    e.exited = true;
    e.code = static_cast<int>(exit_code);
  }
  return e;
}

std::wstring quote_argument(std::wstring_view arg) {
  if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring_view::npos) return std::wstring(arg);
  // Backslashes are literal unless they precede a quote: then each is doubled.
  std::wstring out = L"\"";
  for (std::size_t i = 0;; ++i) {
    std::size_t backslashes = 0;
    while (i < arg.size() && arg[i] == L'\\') ++i, ++backslashes;
    if (i == arg.size()) {
      out.append(backslashes * 2, L'\\');
      break;
    }
    if (arg[i] == L'"') {
      out.append(backslashes * 2 + 1, L'\\');
      out += L'"';
    } else {
      out.append(backslashes, L'\\');
      out += arg[i];
    }
  }
  return out + L"\"";
}

HANDLE null_device(bool write) {
  SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
  HANDLE h = CreateFileW(L"NUL", write ? GENERIC_WRITE : GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
                         OPEN_EXISTING, 0, nullptr);
  return h == INVALID_HANDLE_VALUE ? nullptr : h;
}

}  // namespace windows

}  // namespace winml

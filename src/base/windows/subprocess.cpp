#include "base/subprocess.h"

#include <windows.h>

#include <algorithm>
#include <cwctype>
#include <thread>

#include "base/path_text.h"
#include "base/windows/child_job.h"
#include "base/windows/wide.h"

namespace winml {

namespace {

std::wstring environment_value(const wchar_t* name) {
  const DWORD n = GetEnvironmentVariableW(name, nullptr, 0);
  if (n == 0) return {};
  std::wstring value(n, L'\0');
  value.resize(GetEnvironmentVariableW(name, value.data(), n));
  return value;
}

bool same_name(std::wstring_view a, std::wstring_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](wchar_t x, wchar_t y) { return towupper(x) == towupper(y); });
}

// "k=v\0" for each variable, sorted without regard to case as Windows keeps
// them, then "\0". The variables a process cannot start without are kept.
std::wstring environment_block(const std::map<std::string, std::string>& env) {
  std::vector<std::pair<std::wstring, std::wstring>> vars;
  for (const auto& [k, v] : env) vars.emplace_back(windows::widen(k), windows::widen(v));
  for (const wchar_t* needed : {L"SystemRoot", L"SystemDrive", L"windir"}) {
    const bool given =
        std::any_of(vars.begin(), vars.end(), [&](const auto& kv) { return same_name(kv.first, needed); });
    const std::wstring value = environment_value(needed);
    if (!given && !value.empty()) vars.emplace_back(needed, value);
  }
  std::sort(vars.begin(), vars.end(), [](const auto& a, const auto& b) {
    return std::lexicographical_compare(a.first.begin(), a.first.end(), b.first.begin(), b.first.end(),
                                        [](wchar_t x, wchar_t y) { return towupper(x) < towupper(y); });
  });
  std::wstring block;
  for (const auto& [k, v] : vars) block += k + L"=" + v + L'\0';
  if (vars.empty()) block += L'\0';
  return block + L'\0';
}

std::wstring lowercase(std::wstring s) {
  for (auto& c : s) c = static_cast<wchar_t>(towlower(c));
  return s;
}

// An inheritable handle for a log file, appended to.
HANDLE append_to(const std::filesystem::path& file) {
  SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
  HANDLE h = CreateFileW(windows::api_path(file).c_str(), FILE_APPEND_DATA,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &inherit, OPEN_ALWAYS,
                         FILE_ATTRIBUTE_NORMAL, nullptr);
  return h == INVALID_HANDLE_VALUE ? nullptr : h;
}

// An inheritable copy of one of this process's standard handles.
HANDLE inheritable_copy(DWORD which) {
  HANDLE h = GetStdHandle(which), copy = nullptr;
  if (!h || h == INVALID_HANDLE_VALUE) return nullptr;
  DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &copy, 0, TRUE, DUPLICATE_SAME_ACCESS);
  return copy;
}

struct Handles {
  std::vector<HANDLE> owned;
  HANDLE keep(HANDLE h) {
    if (h) owned.push_back(h);
    return h;
  }
  void close_all() {
    for (HANDLE h : owned) CloseHandle(h);
    owned.clear();
  }
  ~Handles() { close_all(); }
};

// A pipe whose child end is inheritable; `ours` is not.
bool make_pipe(HANDLE& ours, HANDLE& theirs, bool child_reads) {
  SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
  HANDLE read = nullptr, write = nullptr;
  if (!CreatePipe(&read, &write, &inherit, 0)) return false;
  ours = child_reads ? write : read;
  theirs = child_reads ? read : write;
  SetHandleInformation(ours, HANDLE_FLAG_INHERIT, 0);
  return true;
}

void drain(HANDLE from, std::string* into) {
  char buffer[65536];
  DWORD n = 0;
  while (ReadFile(from, buffer, sizeof buffer, &n, nullptr) && n > 0) into->append(buffer, n);
}

}  // namespace

std::filesystem::path find_program(const std::string& name) {
  const std::filesystem::path given = from_utf8(name);
  std::vector<std::wstring> extensions = {L""};
  std::wstring pathext = environment_value(L"PATHEXT");
  if (pathext.empty()) pathext = L".COM;.EXE;.BAT;.CMD";
  for (std::size_t start = 0; start <= pathext.size();) {
    std::size_t end = pathext.find(L';', start);
    if (end == std::wstring::npos) end = pathext.size();
    if (end > start) extensions.push_back(lowercase(pathext.substr(start, end - start)));
    start = end + 1;
  }
  auto try_in = [&](const std::filesystem::path& dir) -> std::filesystem::path {
    for (const auto& ext : extensions) {
      std::filesystem::path candidate = dir / given;
      candidate += ext;
      std::error_code ec;
      if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    }
    return {};
  };
  // A name with a folder is used as it is; otherwise PATH, folder by folder.
  if (given.has_parent_path()) return try_in({});
  const std::wstring path = environment_value(L"PATH");
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t end = path.find(L';', start);
    if (end == std::wstring::npos) end = path.size();
    if (end > start)
      if (auto found = try_in(path.substr(start, end - start)); !found.empty()) return found;
    start = end + 1;
  }
  return {};
}

namespace {

// The line CreateProcess is given. A batch file runs through the command
// interpreter (which `program` becomes): /s keeps the quoted line whole.
std::wstring command_line_for(const ProcessSpec& spec, std::filesystem::path& program) {
  std::wstring line;
  for (const auto& a : spec.argv) line += (line.empty() ? L"" : L" ") + windows::quote_argument(windows::widen(a));
  const std::wstring ext = lowercase(program.extension().native());
  if (ext != L".bat" && ext != L".cmd") return line;
  std::wstring comspec = environment_value(L"ComSpec");
  if (comspec.empty()) comspec = environment_value(L"SystemRoot") + L"\\System32\\cmd.exe";
  program = comspec;
  return windows::quote_argument(comspec) + L" /d /s /c \"" + line + L"\"";
}

// Our ends of the command's pipes (null where it has none).
struct OurEnds {
  HANDLE in = nullptr, out = nullptr, err = nullptr;
  void close() {
    for (HANDLE* h : {&in, &out, &err})
      if (*h) CloseHandle(*h), *h = nullptr;
  }
};

// Gives the command its standard handles: a pipe where the spec feeds or
// collects, else the log file, else this process's own. The error, or "".
std::string connect_stdio(const ProcessSpec& spec, windows::ChildStart& start, Handles& handles, OurEnds& ours) {
  const auto pipe = [&](HANDLE& our_end, HANDLE& their_end, bool child_reads) {
    HANDLE theirs = nullptr;
    if (!make_pipe(our_end, theirs, child_reads)) return false;
    their_end = handles.keep(theirs);
    return true;
  };
  start.std_in = spec.input ? nullptr : handles.keep(windows::null_device(false));
  if (spec.input && !pipe(ours.in, start.std_in, true)) return "cannot create a pipe";
  HANDLE log = spec.log_file.empty() ? nullptr : handles.keep(append_to(spec.log_file));
  if (!spec.log_file.empty() && !log) return "cannot open " + to_utf8(spec.log_file);
  start.std_out = log ? log : handles.keep(inheritable_copy(STD_OUTPUT_HANDLE));
  start.std_err = log ? log : handles.keep(inheritable_copy(STD_ERROR_HANDLE));
  if (spec.output && !pipe(ours.out, start.std_out, false)) return "cannot create a pipe";
  if (spec.errors && !pipe(ours.err, start.std_err, false)) return "cannot create a pipe";
  return "";
}

// Threads that feed and drain the pipes (a big output fills a pipe while
// its input is still being written). The input's feeder closes our end.
std::vector<std::thread> start_pumps(const ProcessSpec& spec, OurEnds& ours) {
  std::vector<std::thread> pumps;
  if (HANDLE in = ours.in) {
    ours.in = nullptr;
    pumps.emplace_back([in, &spec] {
      const std::string& data = *spec.input;
      for (std::size_t done = 0; done < data.size();) {
        DWORD n = 0;
        const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(data.size() - done, 1 << 20));
        if (!WriteFile(in, data.data() + done, chunk, &n, nullptr) || n == 0) break;  // it stopped reading
        done += n;
      }
      CloseHandle(in);
    });
  }
  if (HANDLE out = ours.out) pumps.emplace_back([out, &spec] { drain(out, spec.output); });
  if (HANDLE err = ours.err) pumps.emplace_back([err, &spec] { drain(err, spec.errors); });
  return pumps;
}

// Waits for the command; once *cancel turns true, ends it and everything it
// started. Its exit code.
DWORD wait_for_command(HANDLE process, windows::ChildJob& job, const std::atomic<bool>* cancel) {
  bool stopped = false;
  while (WaitForSingleObject(process, cancel ? 20 : INFINITE) == WAIT_TIMEOUT) {
    if (cancel && cancel->load() && !stopped) {
      job.terminate();
      stopped = true;
    }
  }
  DWORD code = 0;
  GetExitCodeProcess(process, &code);
  CloseHandle(process);
  return code;
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult r;
  if (spec.argv.empty()) {
    r.error = "empty command";
    return r;
  }
  std::filesystem::path program = find_program(spec.argv[0]);
  if (program.empty()) {
    r.error = "cannot execute '" + spec.argv[0] + "': not found";
    return r;
  }
  const std::wstring command_line = command_line_for(spec, program);
  const std::wstring env = environment_block(spec.env);
  windows::ChildStart start{.application = program.native(), .command_line = command_line, .environment = &env};
  if (!spec.cwd.empty()) start.cwd = windows::api_path(spec.cwd);
  Handles handles;
  OurEnds ours;
  if (std::string error = connect_stdio(spec, start, handles, ours); !error.empty()) {
    ours.close();
    r.error = error;
    return r;
  }

  windows::ChildJob job;
  std::string error;
  HANDLE process = windows::start_in_job(start, job, error);
  // The child's ends are the child's now: our copies would keep its pipes open.
  handles.close_all();
  if (!process) {
    ours.close();
    r.error = "cannot execute '" + spec.argv[0] + "': " + error;
    return r;
  }
  r.started = true;
  std::vector<std::thread> pumps = start_pumps(spec, ours);
  const DWORD code = wait_for_command(process, job, spec.cancel);
  // What it started and left running holds the pipes open: end the job
  // before waiting for the pumps.
  if (spec.input || spec.output || spec.errors) job.terminate();
  for (auto& t : pumps) t.join();
  ours.close();
  r.end = windows::end_of(code);
  r.exit_code = r.end.shell_code();
  return r;
}

}  // namespace winml

#include "support/platform.h"

#include <windows.h>
#include <psapi.h>
#include <stdlib.h>

namespace winml::test {

namespace {

std::wstring widen(const std::string& utf8) {
  const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring out(static_cast<std::size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), out.data(), n);
  return out;
}

}  // namespace

bool on_posix() { return false; }

// Through the C runtime, which passes it on to the system: SetEnvironmentVariableW
// alone would leave getenv's copy as it was.
void set_environment_variable(const std::string& name, const std::string& value) {
  _wputenv_s(widen(name).c_str(), widen(value).c_str());
}

// (An empty value removes a variable from the C runtime's environment and the system's.)
void unset_environment_variable(const std::string& name) { _wputenv_s(widen(name).c_str(), L""); }

void kill_this_process() {
  TerminateProcess(GetCurrentProcess(), kKilledExitCode);
  ExitProcess(kKilledExitCode);  // (never reached)
}

bool killed(int exit_status) { return exit_status == kKilledExitCode; }

bool mapped_in_this_process(const std::filesystem::path& file) {
  // The system names a mapped file by its device path (\Device\HarddiskVolume1\...):
  // compared from the folder holding it on, which a test's temporary folder makes unique.
  const std::wstring tail = L"\\" + file.parent_path().filename().native() + L"\\" + file.filename().native();
  MEMORY_BASIC_INFORMATION info{};
  for (const char* p = nullptr; VirtualQuery(p, &info, sizeof info) == sizeof info;
       p = static_cast<const char*>(info.BaseAddress) + info.RegionSize) {
    if (info.State != MEM_COMMIT || info.Type != MEM_MAPPED) continue;
    wchar_t name[MAX_PATH * 2];
    const DWORD n = GetMappedFileNameW(GetCurrentProcess(), info.BaseAddress, name, MAX_PATH * 2);
    const std::wstring mapped(name, n);
    if (mapped.size() >= tail.size() &&
        CompareStringOrdinal(mapped.data() + mapped.size() - tail.size(), static_cast<int>(tail.size()), tail.data(),
                             static_cast<int>(tail.size()), TRUE) == CSTR_EQUAL)
      return true;
  }
  return false;
}

std::filesystem::path a_system_library() {
  wchar_t dir[MAX_PATH + 1] = {};
  const UINT n = GetSystemDirectoryW(dir, MAX_PATH + 1);
  return std::filesystem::path(std::wstring(dir, n)) / L"kernel32.dll";
}

bool make_symlink(const std::filesystem::path& target, const std::filesystem::path& link, std::string& why) {
  // (libstdc++'s create_symlink is not implemented for Windows.)
  std::error_code ec;
  const bool directory = std::filesystem::is_directory(link.parent_path() / target, ec);
  const DWORD flags = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE | (directory ? SYMBOLIC_LINK_FLAG_DIRECTORY : 0);
  if (!CreateSymbolicLinkW(link.c_str(), target.c_str(), flags)) {
    why = "CreateSymbolicLinkW: error " + std::to_string(GetLastError()) +
          " (Windows makes them with Developer Mode on, or as an administrator)";
    return false;
  }
  // Wine 8's CreateSymbolicLinkW reports success and makes nothing.
  const DWORD a = GetFileAttributesW(link.c_str());
  if (a == INVALID_FILE_ATTRIBUTES || !(a & FILE_ATTRIBUTE_REPARSE_POINT)) {
    why = "CreateSymbolicLinkW reported success but made no link (Wine)";
    return false;
  }
  return true;
}

void remove_file(const std::filesystem::path& path) {
  SetFileAttributesW(path.c_str(), FILE_ATTRIBUTE_NORMAL);
  std::filesystem::remove(path);
}

std::filesystem::path a_device() { return L"\\\\.\\NUL"; }

bool make_fifo(const std::filesystem::path&, std::string& why) {
  why = "Windows keeps named pipes in \\\\.\\pipe\\, not in a folder";
  return false;
}

}  // namespace winml::test

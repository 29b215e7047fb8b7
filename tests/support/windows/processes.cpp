#include <windows.h>
#include <tlhelp32.h>

#include "support/processes.h"

namespace winml::test {

bool process_running(long long pid) {
  HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, static_cast<DWORD>(pid));
  if (!h) return false;
  const bool running = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
  CloseHandle(h);
  return running;
}

long long parent_process(long long pid) {
  long long parent = 0;
  HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snapshot == INVALID_HANDLE_VALUE) return parent;
  PROCESSENTRY32W entry{};
  entry.dwSize = sizeof entry;
  for (BOOL more = Process32FirstW(snapshot, &entry); more; more = Process32NextW(snapshot, &entry))
    if (entry.th32ProcessID == static_cast<DWORD>(pid)) parent = entry.th32ParentProcessID;
  CloseHandle(snapshot);
  return parent;
}

std::vector<long long> child_processes(long long pid) {
  std::vector<long long> out;
  HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snapshot == INVALID_HANDLE_VALUE) return out;
  PROCESSENTRY32W entry{};
  entry.dwSize = sizeof entry;
  for (BOOL more = Process32FirstW(snapshot, &entry); more; more = Process32NextW(snapshot, &entry))
    if (entry.th32ParentProcessID == static_cast<DWORD>(pid) && process_running(entry.th32ProcessID))
      out.push_back(entry.th32ProcessID);
  CloseHandle(snapshot);
  return out;
}

void crash_process(long long pid) {
  HANDLE h = OpenProcess(PROCESS_TERMINATE, FALSE, static_cast<DWORD>(pid));
  if (!h) return;
  TerminateProcess(h, 0xC0000005);
  CloseHandle(h);
}

}  // namespace winml::test

#include "support/nginx_server.h"

#include <winsock2.h>
#include <windows.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace winml::test {

namespace fs = std::filesystem;

namespace {

// Debian's nginx as Wine sees it: a Linux program it starts beside the
// Windows ones. On Windows itself there is none, and the tests that need a
// cache server say so and skip.
constexpr const wchar_t* kNginx = L"Z:\\usr\\sbin\\nginx";

// The Linux path of a Windows one, for nginx's configuration (Wine's
// wine_get_unix_file_name).
std::string unix_path(const fs::path& p) {
  using ToUnix = char*(CDECL*)(const wchar_t*);
  static const auto to_unix =
      reinterpret_cast<ToUnix>(GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "wine_get_unix_file_name"));
  if (!to_unix) throw std::runtime_error("nginx needs Wine's wine_get_unix_file_name");
  char* u = to_unix(fs::absolute(p).wstring().c_str());
  if (!u) throw std::runtime_error("no Linux path for " + p.string());
  std::string out(u);
  HeapFree(GetProcessHeap(), 0, u);
  return out;
}

struct Winsock {
  Winsock() {
    WSADATA data;
    WSAStartup(MAKEWORD(2, 2), &data);
  }
};

int free_port() {
  static Winsock winsock;
  SOCKET s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int len = sizeof addr;
  if (s == INVALID_SOCKET || bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot find a free port on 127.0.0.1");
  closesocket(s);
  return ntohs(addr.sin_port);
}

bool accepts_connections(int port) {
  static Winsock winsock;
  SOCKET s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<u_short>(port));
  const bool ok = connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  closesocket(s);
  return ok;
}

// Starts nginx with `args` (Wine runs it without a handle to wait on).
void run_nginx(const std::wstring& args) {
  std::wstring command_line = std::wstring(L"nginx ") + args;
  STARTUPINFOW si{};
  si.cb = sizeof si;
  PROCESS_INFORMATION pi{};
  if (!CreateProcessW(kNginx, command_line.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr, &si, &pi))
    throw std::runtime_error("cannot start nginx");
  CloseHandle(pi.hThread);
  CloseHandle(pi.hProcess);
}

std::wstring prefix_args(const fs::path& d) {
  const std::string prefix = unix_path(d) + "/", config = unix_path(d / "nginx.conf");
  return L"-p \"" + std::wstring(prefix.begin(), prefix.end()) + L"\" -c \"" +
         std::wstring(config.begin(), config.end()) + L"\"";
}

}  // namespace

bool NginxServer::available() { return GetFileAttributesW(kNginx) != INVALID_FILE_ATTRIBUTES; }

void NginxServer::start() {
  port_ = free_port();
  const fs::path d = dir_.path();
  write_config(unix_path, true);
  run_nginx(prefix_args(d));
  pid_ = 1;  // running; stop() asks it by its configuration
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!accepts_connections(port_)) {
    if (std::chrono::steady_clock::now() > deadline) {
      pid_ = -1;
      throw std::runtime_error("nginx did not start: " + read_text(d / "error.log"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void NginxServer::stop() {
  if (pid_ <= 0) return;
  run_nginx(prefix_args(dir_.path()) + L" -s stop");
  for (int i = 0; i < 500 && accepts_connections(port_); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  pid_ = -1;
}

}  // namespace winml::test

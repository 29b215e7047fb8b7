#include "support/nginx_server.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace winml::test {

namespace fs = std::filesystem;

namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";

// A port nothing listens on right now (the kernel's choice for port 0).
int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot find a free port on 127.0.0.1");
  ::close(s);
  return ntohs(addr.sin_port);
}

bool accepts_connections(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(s);
  return ok;
}

}  // namespace

bool NginxServer::available() { return ::access(kNginx, X_OK) == 0; }

void NginxServer::start() {
  port_ = free_port();
  const fs::path d = dir_.path();
  write_config([](const fs::path& p) { return p.string(); }, ::geteuid() == 0);
  pid_ = ::fork();
  if (pid_ == 0) {
    const std::string out = (d / "nginx.out").string();
    std::FILE* f = std::freopen(out.c_str(), "w", stdout);
    (void)f;
    ::dup2(::fileno(stdout), 2);
    const std::string prefix = d.string() + "/", config = (d / "nginx.conf").string();
    ::execl(kNginx, kNginx, "-p", prefix.c_str(), "-c", config.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!accepts_connections(port_)) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_ || std::chrono::steady_clock::now() > deadline) {
      pid_ = -1;
      throw std::runtime_error("nginx did not start: " + read_text(d / "nginx.out") + read_text(d / "error.log"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void NginxServer::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 250; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);  // the master ends its workers on SIGTERM; this is the fallback
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace winml::test

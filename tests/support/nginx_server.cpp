#include "support/nginx_server.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace winml::test {

namespace fs = std::filesystem;

namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

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

NginxServer::NginxServer(NginxOptions options) : options_(std::move(options)) {
  // Another process may take the port between the probe and nginx's bind:
  // try a few ports before giving up.
  for (int attempt = 0;; ++attempt) {
    try {
      start();
      return;
    } catch (const std::exception&) {
      stop();
      if (attempt == 4) throw;
    }
  }
}

NginxServer::~NginxServer() { stop(); }

fs::path NginxServer::root() const { return dir_ / "www" / "cache"; }

std::string NginxServer::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/cache"; }

std::string NginxServer::access_log() const { return read_all(dir_ / "access.log"); }

bool NginxServer::upload_in_progress() const {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_ / "temp" / "client_body", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) return true;
  return false;
}

void NginxServer::start() {
  port_ = free_port();
  const fs::path d = dir_.path();
  fs::create_directories(root());
  fs::create_directories(d / "temp");
  std::string auth;
  if (options_.basic_auth_for_writes) {
    // {PLAIN} is a scheme nginx's auth_basic_user_file understands: no
    // hashing tool needed for a test password.
    std::ofstream(d / "htpasswd") << options_.user << ":{PLAIN}" << options_.password << "\n";
    auth = "      limit_except GET HEAD { auth_basic \"cache\"; auth_basic_user_file " + (d / "htpasswd").string() +
           "; }\n";
  }
  std::ofstream conf(d / "nginx.conf");
  // As root, workers would switch to nobody and could not write the temp
  // folder: keep them as the user running the test.
  if (::geteuid() == 0) conf << "user root;\n";
  conf << "daemon off;\nworker_processes 1;\npid " << (d / "nginx.pid").string() << ";\n"
       << "error_log " << (d / "error.log").string() << " info;\nevents {}\nhttp {\n"
       << "  log_format plain '$request_method $uri $status $body_bytes_sent';\n"
       << "  access_log " << (d / "access.log").string() << " plain;\n";
  for (const char* t : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    conf << "  " << t << "_temp_path " << (d / "temp" / t).string() << ";\n";
  conf << "  server {\n    listen 127.0.0.1:" << port_ << ";\n"
       << "    location /cache/ {\n      root " << (d / "www").string() << ";\n"
       << "      dav_methods PUT;\n      create_full_put_path on;\n      dav_access user:rw group:r all:r;\n"
       << "      client_max_body_size " << options_.client_max_body_size << ";\n"
       << auth << "    }\n  }\n}\n";
  conf.close();

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
      throw std::runtime_error("nginx did not start: " + read_all(d / "nginx.out") + read_all(d / "error.log"));
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

#include "remote/trickling_server.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace winml::test {

namespace {

constexpr std::size_t kChunk = 4096;
constexpr std::size_t kBody = 60 * kChunk;               // 240 KiB
constexpr auto kEvery = std::chrono::milliseconds(500);  // 8 KiB/s: 30 s for the body

}  // namespace

TricklingServer::TricklingServer() {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener_, 64) != 0 || ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot listen on 127.0.0.1");
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int c = ::accept(listener_, nullptr, nullptr);
      if (c < 0) continue;
      std::lock_guard lock(mu_);
      connections_.emplace_back([this, c] { serve(c); });
    }
  });
}

void TricklingServer::serve(int c) {
  // The request's head, whatever it asks.
  std::string request;
  char buf[4096];
  while (request.find("\r\n\r\n") == std::string::npos && !stop_) {
    pollfd p{c, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::read(c, buf, sizeof buf);
    if (n <= 0) break;
    request.append(buf, static_cast<std::size_t>(n));
  }
  const std::string head =
      "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(kBody) + "\r\nConnection: close\r\n\r\n";
  bool open = ::send(c, head.data(), head.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(head.size());
  const std::string chunk(kChunk, 'x');
  for (std::size_t sent = 0; open && sent < kBody && !stop_; sent += kChunk) {
    open = ::send(c, chunk.data(), chunk.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(chunk.size());
    for (auto until = std::chrono::steady_clock::now() + kEvery; !stop_ && std::chrono::steady_clock::now() < until;)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::close(c);
}

TricklingServer::~TricklingServer() {
  stop_ = true;
  thread_.join();
  for (auto& t : connections_) t.join();
  ::close(listener_);
}

}  // namespace winml::test

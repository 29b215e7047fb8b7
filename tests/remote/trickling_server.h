// A server on 127.0.0.1 that answers every request with 200 and a body it
// sends a few KiB at a time, fast enough never to count as stalled, slow
// enough that a transfer without a total time limit takes half a minute.
#pragma once

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace winml::test {

class TricklingServer {
 public:
  TricklingServer();
  ~TricklingServer();
  int port() const { return port_; }

 private:
  void serve(int connection);
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<std::thread> connections_;
  std::thread thread_;
};

}  // namespace winml::test

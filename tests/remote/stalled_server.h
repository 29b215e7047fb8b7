// A server that accepts connections on 127.0.0.1 and never answers: what a
// hung cache server looks like to a client.
#pragma once

#include <atomic>
#include <thread>
#include <vector>

namespace winml::test {

class StalledServer {
 public:
  StalledServer();
  ~StalledServer();
  int port() const { return port_; }

 private:
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::vector<int> held_;
  std::thread thread_;
};

}  // namespace winml::test

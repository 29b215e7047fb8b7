#include "support/fifo.h"

#include <windows.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "base/this_process.h"

namespace winml::test {

// Serves the pipe: each client that connects (one that only looks at it, or
// one that writes) gets an instance, and what it writes is kept. The next
// instance waits while one is read, as a FIFO takes any number of opens: a
// client opening the pipe right after another (a look, then the write)
// never finds it busy.
struct Fifo::Reader {
  std::wstring name;
  std::mutex mu;
  std::string data;
  int reading = 0;  // connections whose client has not closed its end yet
  std::atomic<bool> stop{false};
  std::thread thread;

  void read(HANDLE pipe) {
    char buffer[65536];
    DWORD n = 0;
    while (ReadFile(pipe, buffer, sizeof buffer, &n, nullptr) && n > 0) {
      std::lock_guard lock(mu);
      data.append(buffer, n);
    }
    DisconnectNamedPipe(pipe);
    CloseHandle(pipe);
    std::lock_guard lock(mu);
    --reading;
  }

  void serve() {
    std::vector<std::thread> clients;
    auto listen = [this] {
      return CreateNamedPipeW(name.c_str(), PIPE_ACCESS_INBOUND, PIPE_TYPE_BYTE | PIPE_WAIT,
                              PIPE_UNLIMITED_INSTANCES, 1 << 16, 1 << 16, 0, nullptr);
    };
    // The next instance listens before a connected one is handed to its
    // reader: the name never disappears between two clients (a status
    // query, which is a client too, followed by the writer's open).
    HANDLE next = listen();
    while (!stop) {
      HANDLE pipe = next;
      if (pipe == INVALID_HANDLE_VALUE) break;
      // (A client may connect before ConnectNamedPipe, and even write and
      // close: ERROR_NO_DATA, its bytes still there to read.)
      const bool connected = ConnectNamedPipe(pipe, nullptr) || GetLastError() == ERROR_PIPE_CONNECTED ||
                             GetLastError() == ERROR_NO_DATA;
      next = listen();
      if (!connected || stop) {
        CloseHandle(pipe);
        continue;
      }
      {
        std::lock_guard lock(mu);
        ++reading;
      }
      clients.emplace_back([this, pipe] { read(pipe); });
    }
    if (next != INVALID_HANDLE_VALUE) CloseHandle(next);
    for (auto& c : clients) c.join();
  }
};

Fifo::Fifo(const std::filesystem::path& path) : reader_(std::make_unique<Reader>()) {
  static std::atomic<unsigned> counter{0};
  reader_->name = L"\\\\.\\pipe\\winml-test-" + std::to_wstring(current_process_id()) + L"-" +
                  std::to_wstring(counter++) + L"-" + path.filename().wstring();
  path_ = reader_->name;
  reader_->thread = std::thread([r = reader_.get()] { r->serve(); });
  // The first instance exists once a client can open it.
  for (int i = 0; i < 3000 && !WaitNamedPipeW(reader_->name.c_str(), 10); ++i) std::this_thread::yield();
}

Fifo::~Fifo() {
  reader_->stop = true;
  // Wakes the thread where it waits for a client.
  HANDLE h = CreateFileW(reader_->name.c_str(), GENERIC_WRITE, 0, nullptr, OPEN_EXISTING, 0, nullptr);
  if (h != INVALID_HANDLE_VALUE) CloseHandle(h);
  reader_->thread.join();
}

std::string Fifo::drain() {
  // What writers that have closed their end wrote is in the pipe: wait until
  // it is read, up to a few seconds for the first bytes to be taken in.
  const ULONGLONG deadline = GetTickCount64() + 5000;
  for (;;) {
    {
      std::lock_guard lock(reader_->mu);
      if ((reader_->reading == 0 && !reader_->data.empty()) || GetTickCount64() > deadline)
        return std::move(reader_->data);
    }
    Sleep(10);
  }
}

}  // namespace winml::test

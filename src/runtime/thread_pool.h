// A fixed set of worker threads running index ranges. Determinism is the
// caller's contract: parallel_for runs fn(i) once for every tile index i, and
// each tile must compute the same bytes whichever thread runs it, so results
// never depend on the thread count. Kernels therefore split work into tiles
// whose boundaries depend only on tensor shapes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace winml::runtime {

class ThreadPool {
 public:
  // `threads` counts the calling thread; 0 means default_threads().
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(i) for every i in [0, n) and returns when all are done. Calls
  // from inside a running tile (nested parallelism) run inline. The first
  // exception thrown by a tile is rethrown here.
  void parallel_for(std::int64_t n, const std::function<void(std::int64_t)>& fn);

  // $WINML_RUNTIME_THREADS when set (base/runtime_threads.h), else one per core.
  static int default_threads();

 private:
  struct Job;
  void worker_loop();
  static void run_tiles(Job& job);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  Job* job_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};
  bool stopping_ = false;
  std::mutex submit_;  // one parallel_for at a time per pool
};

}  // namespace winml::runtime

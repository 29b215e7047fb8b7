#include "runtime/thread_pool.h"

#include <atomic>
#include <chrono>
#include <exception>

#include "base/runtime_threads.h"

namespace winml::runtime {

namespace {
thread_local bool t_inside_tile = false;

// Marks the current thread as running tiles so nested calls run inline.
struct InsideTile {
  bool previous = t_inside_tile;
  InsideTile() { t_inside_tile = true; }
  ~InsideTile() { t_inside_tile = previous; }
};

// Models run many short parallel ops back to back: waiting threads spin
// briefly before sleeping, which saves a wake-up per op.
constexpr auto kSpin = std::chrono::microseconds(50);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

struct ThreadPool::Job {
  std::int64_t n = 0;
  const std::function<void(std::int64_t)>* fn = nullptr;
  std::atomic<std::int64_t> next{0};
  std::atomic<int> active{0};  // workers still inside this job
  std::mutex error_mutex;
  std::exception_ptr error;
};

int ThreadPool::default_threads() {
  if (const int forced = runtime_threads_override()) return forced;
  unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = default_threads();
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::run_tiles(Job& job) {
  InsideTile inside;
  for (;;) {
    std::int64_t i = job.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= job.n) return;
    try {
      (*job.fn)(i);
    } catch (...) {
      std::lock_guard lock(job.error_mutex);
      if (!job.error) job.error = std::current_exception();
      job.next.store(job.n, std::memory_order_relaxed);  // stop handing out tiles
    }
  }
}

void ThreadPool::worker_loop() {
  std::uint64_t seen = 0;
  for (;;) {
    // Spin a little for the next job, then sleep.
    auto until = std::chrono::steady_clock::now() + kSpin;
    while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until)
      for (int i = 0; i < 64; ++i) cpu_relax();
    Job* job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_.load(std::memory_order_relaxed) != seen; });
      if (stopping_) return;
      seen = generation_.load(std::memory_order_relaxed);
      job = job_;
      if (!job) continue;
      job->active.fetch_add(1, std::memory_order_acq_rel);
    }
    run_tiles(*job);
    if (job->active.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mutex_);
      done_.notify_all();
    }
  }
}

void ThreadPool::parallel_for(std::int64_t n, const std::function<void(std::int64_t)>& fn) {
  if (n <= 0) return;
  if (n == 1 || workers_.empty() || t_inside_tile) {
    InsideTile inside;
    for (std::int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::lock_guard submit(submit_);
  Job job;
  job.n = n;
  job.fn = &fn;
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  run_tiles(job);
  {
    // Workers that never picked the job up must not touch it after we return.
    std::unique_lock lock(mutex_);
    job_ = nullptr;
    done_.wait(lock, [&] { return job.active.load(std::memory_order_acquire) == 0; });
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace winml::runtime

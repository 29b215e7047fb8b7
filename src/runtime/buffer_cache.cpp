#include "runtime/buffer_cache.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "base/memory_pages.h"

namespace winml::runtime {

namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kSmall = 64 * 1024;                   // below: plain allocation (malloc recycles those well)
constexpr std::size_t kMaxCached = std::size_t{256} << 20;  // bytes kept for reuse

class BufferCache {
 public:
  void* take(std::size_t bytes) {
    {
      std::lock_guard lock(mutex_);
      auto it = free_.find(bytes);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_ -= bytes;
        return p;
      }
    }
    void* p = aligned_allocate(bytes, kAlignment);
    if (!p) throw std::bad_alloc();
    return p;
  }

  void give(void* p, std::size_t bytes) {
    {
      std::lock_guard lock(mutex_);
      if (cached_ + bytes <= kMaxCached) {
        free_[bytes].push_back(p);
        cached_ += bytes;
        return;
      }
    }
    aligned_free(p);
  }

 private:
  std::mutex mutex_;
  std::map<std::size_t, std::vector<void*>> free_;
  std::size_t cached_ = 0;
};

// Never destroyed: tensors may be released during static destruction.
BufferCache& cache() {
  static BufferCache* c = new BufferCache();
  return *c;
}

}  // namespace

std::shared_ptr<void> cached_buffer(std::size_t bytes) {
  // Sizes round up to 4 KiB above kSmall so that near-equal shapes share buffers.
  std::size_t rounded =
      bytes < kSmall ? (bytes + kAlignment - 1) / kAlignment * kAlignment : (bytes + 4095) / 4096 * 4096;
  if (rounded == 0) rounded = kAlignment;
  if (rounded < kSmall) {
    void* p = aligned_allocate(rounded, kAlignment);
    if (!p) throw std::bad_alloc();
    return std::shared_ptr<void>(p, [](void* q) { aligned_free(q); });
  }
  void* p = cache().take(rounded);
  return std::shared_ptr<void>(p, [rounded](void* q) { cache().give(q, rounded); });
}

}  // namespace winml::runtime

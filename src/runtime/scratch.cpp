#include "runtime/scratch.h"

#include <cstdlib>
#include <new>

#include "base/huge_heap.h"
#include "base/thread_exit.h"

namespace winml::runtime {

namespace {

struct Slot {
  void* data = nullptr;
  std::size_t bytes = 0;
  bool busy = false;
};

// A few slots per thread cover nested uses; beyond that, plain allocation.
constexpr int kSlots = 4;

struct ThreadCache {
  Slot slots[kSlots];
  static void release(void* cache) {
    auto* c = static_cast<ThreadCache*>(cache);
    for (auto& s : c->slots) free_on_huge_pages(s.data);
    delete c;
  }
};

// A pointer, released when the thread ends (base/thread_exit.h): a
// thread-local object's destructor may run after MinGW's emulated TLS has
// freed the object.
thread_local ThreadCache* t_cache = nullptr;

ThreadCache& cache() {
  if (!t_cache) {
    t_cache = new ThreadCache;
    at_thread_exit(&ThreadCache::release, t_cache);
  }
  return *t_cache;
}

void* aligned(std::size_t bytes) { return allocate_on_huge_pages(bytes); }

}  // namespace

Scratch::Scratch(std::size_t bytes) {
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = cache().slots[i];
    if (s.busy) continue;
    if (s.bytes < bytes) {
      free_on_huge_pages(s.data);
      s.data = nullptr;
      s.bytes = 0;
      s.data = aligned(bytes);
      s.bytes = bytes;
    }
    s.busy = true;
    slot_ = i;
    data_ = s.data;
    return;
  }
  data_ = aligned(bytes);
}

Scratch::~Scratch() {
  if (slot_ >= 0) cache().slots[slot_].busy = false;
  else free_on_huge_pages(data_);
}

}  // namespace winml::runtime

#include "runtime/scratch.h"

#include <cstdlib>
#include <new>

#include "base/huge_heap.h"

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
  ~ThreadCache() {
    for (auto& s : slots) free_on_huge_pages(s.data);
  }
};

thread_local ThreadCache t_cache;

void* aligned(std::size_t bytes) { return allocate_on_huge_pages(bytes); }

}  // namespace

Scratch::Scratch(std::size_t bytes) {
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = t_cache.slots[i];
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
  if (slot_ >= 0) t_cache.slots[slot_].busy = false;
  else free_on_huge_pages(data_);
}

}  // namespace winml::runtime

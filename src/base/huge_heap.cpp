#include "base/huge_heap.h"

#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>

#include "base/memory_pages.h"

namespace winml {

namespace {
constexpr std::uintptr_t kHugePage = 2u << 20;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif
}  // namespace

std::size_t kept_huge_bytes_limit() { return kAddressSanitizer ? 0 : std::size_t{1} << 30; }

void use_huge_pages_for_heap(std::size_t reserve, std::size_t largest_block) {
  reserve_heap_on_huge_pages(reserve, largest_block);
}

namespace {

// Huge blocks handed out (by address) and freed ones kept (by size).
struct HugeBlocks {
  std::mutex mu;
  std::unordered_map<void*, std::size_t> live;
  std::multimap<std::size_t, void*> kept;
  std::size_t kept_bytes = 0;

  // (under mu) Frees kept blocks, largest first, until `bytes` are freed.
  void drop(std::size_t bytes) {
    std::size_t dropped = 0;
    while (dropped < bytes && !kept.empty()) {
      auto last = std::prev(kept.end());
      dropped += last->first;
      kept_bytes -= last->first;
      aligned_free(last->second);
      kept.erase(last);
    }
  }
};

HugeBlocks& huge_blocks() {
  // Never destroyed: frees may come from static destructors. (A worker
  // process is started by fork and exec at once: the child never allocates,
  // so the lock held by another thread at the fork does not matter there.)
  static auto* blocks = new HugeBlocks;
  return *blocks;
}

}  // namespace

void* allocate_on_huge_pages(std::size_t bytes) {
  const std::size_t rounded = bytes ? (bytes + 63) / 64 * 64 : 64;
  if (rounded < kHugePage) {
    void* p = aligned_allocate(rounded, 64);
    if (!p) throw std::bad_alloc();
    return p;
  }
  const std::size_t size = (rounded + kHugePage - 1) & ~(kHugePage - 1);
  HugeBlocks& b = huge_blocks();
  {
    std::lock_guard lock(b.mu);
    // A kept block of this size, or up to a quarter larger.
    auto fit = b.kept.lower_bound(size);
    if (fit != b.kept.end() && fit->first <= size + size / 4) {
      void* p = fit->second;
      b.live.emplace(p, fit->first);
      b.kept_bytes -= fit->first;
      b.kept.erase(fit);
      return p;
    }
    b.drop(size);
  }
  void* p = aligned_allocate(size, kHugePage);
  if (!p) throw std::bad_alloc();
  advise_huge_pages(p, size);
  std::lock_guard lock(b.mu);
  b.live.emplace(p, size);
  return p;
}

void free_on_huge_pages(void* p) {
  if (!p) return;
  HugeBlocks& b = huge_blocks();
  {
    std::lock_guard lock(b.mu);
    auto it = b.live.find(p);
    if (it != b.live.end()) {
      const std::size_t size = it->second;
      b.live.erase(it);
      if (b.kept_bytes + size <= kept_huge_bytes_limit()) {
        b.kept.emplace(size, p);
        b.kept_bytes += size;
        return;
      }
    }
  }
  aligned_free(p);
}

std::size_t release_kept_huge_blocks() {
  HugeBlocks& b = huge_blocks();
  std::lock_guard lock(b.mu);
  const std::size_t bytes = b.kept_bytes;
  b.drop(bytes);
  return bytes;
}

}  // namespace winml

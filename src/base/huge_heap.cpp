#include "base/huge_heap.h"

#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>

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
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  if (::mallopt(M_TOP_PAD, static_cast<int>(reserve)) != 1) return;
  ::mallopt(M_MMAP_THRESHOLD, static_cast<int>(largest_block));
  // Grow the heap now, past what its top holds, so the reserve is in place
  // before it is used.
  auto* before = static_cast<char*>(::sbrk(0));
  const std::size_t top = ::mallinfo2().keepcost;
  const auto from = reinterpret_cast<std::uintptr_t>(std::malloc(top + (64u << 10)));
  // (Used, so the compiler cannot drop the pair of calls.)
  asm volatile("" : : "r"(from) : "memory");
  std::free(reinterpret_cast<void*>(from));  // (which may give back what is above the reserve)
  auto* after = static_cast<char*>(::sbrk(0));
  if (!from || before == reinterpret_cast<char*>(-1) || after <= before) return;
  const auto end = reinterpret_cast<std::uintptr_t>(after);
  // The next blocks come from where the probe was. Huge pages only back
  // whole aligned 2 MiB: skip to the next boundary with a block that is kept
  // and never touched, so the heap's first bytes are on a huge page too.
  const std::uintptr_t boundary = (from + kHugePage - 1) & ~(kHugePage - 1);
  if (boundary + kHugePage > end) return;
  if (boundary - from > 4096) {
    void* gap = std::malloc(boundary - from - 32);
    asm volatile("" : : "r"(gap) : "memory");
  }
  ::madvise(reinterpret_cast<void*>(boundary), end - boundary, MADV_HUGEPAGE);
#else
  (void)reserve;
  (void)largest_block;
#endif
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
      std::free(last->second);
      kept.erase(last);
    }
  }
};

HugeBlocks& huge_blocks() {
  static auto* blocks = [] {
    auto* b = new HugeBlocks;  // (never destroyed: frees may come from static destructors)
    // A worker process (base/worker_process.h) is forked while other threads
    // may hold the lock: held across fork, it is released in both processes.
    ::pthread_atfork([] { huge_blocks().mu.lock(); }, [] { huge_blocks().mu.unlock(); },
                     [] { huge_blocks().mu.unlock(); });
    return b;
  }();
  return *blocks;
}

}  // namespace

void* allocate_on_huge_pages(std::size_t bytes) {
  const std::size_t rounded = bytes ? (bytes + 63) / 64 * 64 : 64;
  if (rounded < kHugePage) {
    void* p = std::aligned_alloc(64, rounded);
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
  void* p = std::aligned_alloc(kHugePage, size);
  if (!p) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  ::madvise(p, size, MADV_HUGEPAGE);
#endif
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
  std::free(p);
}

std::size_t release_kept_huge_blocks() {
  HugeBlocks& b = huge_blocks();
  std::lock_guard lock(b.mu);
  const std::size_t bytes = b.kept_bytes;
  b.drop(bytes);
  return bytes;
}

}  // namespace winml

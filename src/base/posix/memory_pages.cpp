#include "base/memory_pages.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace winml {

namespace {
constexpr std::uintptr_t kHugePageSize = 2u << 20;
}  // namespace

void* aligned_allocate(std::size_t size, std::size_t alignment) { return std::aligned_alloc(alignment, size); }

void aligned_free(void* p) { std::free(p); }

void advise_huge_pages(void* p, std::size_t size) { ::madvise(p, size, MADV_HUGEPAGE); }

void reserve_heap_on_huge_pages(std::size_t reserve, std::size_t largest_block) {
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
  const std::uintptr_t boundary = (from + kHugePageSize - 1) & ~(kHugePageSize - 1);
  if (boundary + kHugePageSize > end) return;
  if (boundary - from > 4096) {
    void* gap = std::malloc(boundary - from - 32);
    asm volatile("" : : "r"(gap) : "memory");
  }
  ::madvise(reinterpret_cast<void*>(boundary), end - boundary, MADV_HUGEPAGE);
}

}  // namespace winml

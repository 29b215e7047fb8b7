#include "base/huge_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace winml {

namespace {
constexpr std::uintptr_t kHugePage = 2u << 20;
}

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

void* allocate_on_huge_pages(std::size_t bytes) {
  const std::size_t rounded = bytes ? (bytes + 63) / 64 * 64 : 64;
  const bool huge = rounded >= kHugePage;
  const std::size_t size = huge ? (rounded + kHugePage - 1) & ~(kHugePage - 1) : rounded;
  void* p = std::aligned_alloc(huge ? kHugePage : 64, size);
  if (!p) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  if (huge) ::madvise(p, size, MADV_HUGEPAGE);
#endif
  return p;
}

}  // namespace winml

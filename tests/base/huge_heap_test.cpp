// Blocks on huge pages: alignment, and freed huge blocks kept for reuse
// without ever raising the peak.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "base/huge_heap.h"

namespace winml {
namespace {

constexpr std::size_t kHeapMiB = std::size_t{1} << 20;

bool aligned_to(const void* p, std::size_t alignment) { return reinterpret_cast<std::uintptr_t>(p) % alignment == 0; }

TEST(HugeHeap, SmallBlocksAre64ByteAlignedHugeOnesStartOnAHugePage) {
  release_kept_huge_blocks();
  void* small = allocate_on_huge_pages(1000);
  void* huge = allocate_on_huge_pages(3 * kHeapMiB + 5);
  EXPECT_TRUE(aligned_to(small, 64));
  EXPECT_TRUE(aligned_to(huge, 2 * kHeapMiB));
  std::memset(small, 1, 1000);
  std::memset(huge, 1, 3 * kHeapMiB + 5);
  free_on_huge_pages(small);
  free_on_huge_pages(huge);
  free_on_huge_pages(nullptr);
  release_kept_huge_blocks();
}

TEST(HugeHeap, AFreedHugeBlockServesTheNextRequestOfAboutItsSize) {
  if (kept_huge_bytes_limit() == 0) GTEST_SKIP() << "blocks are not kept under AddressSanitizer";
  release_kept_huge_blocks();
  void* a = allocate_on_huge_pages(8 * kHeapMiB);
  free_on_huge_pages(a);
  // (8 MiB rounds to 8 MiB; 7 MiB + 1 to 8 MiB as well)
  void* again = allocate_on_huge_pages(7 * kHeapMiB + 1);
  EXPECT_EQ(again, a);
  free_on_huge_pages(again);
  // A request a quarter smaller still fits; one much smaller does not.
  void* smaller = allocate_on_huge_pages(6 * kHeapMiB + 64);
  EXPECT_EQ(smaller, a);
  free_on_huge_pages(smaller);
  EXPECT_EQ(release_kept_huge_blocks(), 8 * kHeapMiB);
  EXPECT_EQ(release_kept_huge_blocks(), 0u);
}

TEST(HugeHeap, ARequestNothingKeptFitsFreesKeptBlocksFirst) {
  if (kept_huge_bytes_limit() == 0) GTEST_SKIP() << "blocks are not kept under AddressSanitizer";
  release_kept_huge_blocks();
  void* a = allocate_on_huge_pages(4 * kHeapMiB);
  void* b = allocate_on_huge_pages(4 * kHeapMiB);
  free_on_huge_pages(a);
  free_on_huge_pages(b);
  // 16 MiB fits neither: both kept blocks (8 MiB) go back before it is taken.
  void* big = allocate_on_huge_pages(16 * kHeapMiB);
  EXPECT_EQ(release_kept_huge_blocks(), 0u);
  // Small blocks are never kept.
  void* small = allocate_on_huge_pages(64 * 1024);
  free_on_huge_pages(small);
  EXPECT_EQ(release_kept_huge_blocks(), 0u);
  free_on_huge_pages(big);
  EXPECT_EQ(release_kept_huge_blocks(), 16 * kHeapMiB);
}

TEST(HugeHeap, KeptBlocksStayWithinTheLimit) {
  if (kept_huge_bytes_limit() == 0) GTEST_SKIP() << "blocks are not kept under AddressSanitizer";
  release_kept_huge_blocks();
  // Address space only: the blocks are never touched.
  const std::size_t part = kept_huge_bytes_limit() / 2 + 2 * kHeapMiB;
  void* a = allocate_on_huge_pages(part);
  void* b = allocate_on_huge_pages(part);
  free_on_huge_pages(a);
  free_on_huge_pages(b);  // (would pass the limit: freed at once)
  EXPECT_EQ(release_kept_huge_blocks(), part);
}

}  // namespace
}  // namespace winml

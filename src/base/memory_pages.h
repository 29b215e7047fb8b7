// Memory straight from the system, for the heap's huge-page use
// (base/huge_heap.h): aligned blocks, and the advice that puts them on huge
// pages where the system has them (base/posix/memory_pages.cpp: glibc and
// Linux's transparent huge pages; base/windows/memory_pages.cpp).
#pragma once

#include <cstddef>

namespace winml {

// `size` bytes aligned to `alignment` (a power of two); nullptr when out of
// memory. Freed with aligned_free only.
void* aligned_allocate(std::size_t size, std::size_t alignment);
void aligned_free(void* p);

// Asks for huge pages over [p, p + size); nothing where there are none.
void advise_huge_pages(void* p, std::size_t size);

// Grows the C heap by `reserve` bytes at once (and by as much whenever it
// grows again), keeps blocks up to `largest_block` in it, and asks for huge
// pages over the reserve. Nothing where any step is unavailable.
void reserve_heap_on_huge_pages(std::size_t reserve, std::size_t largest_block);

}  // namespace winml

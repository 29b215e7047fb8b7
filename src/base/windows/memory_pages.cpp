#include "base/memory_pages.h"

#include <malloc.h>

namespace winml {

void* aligned_allocate(std::size_t size, std::size_t alignment) { return _aligned_malloc(size, alignment); }

void aligned_free(void* p) { _aligned_free(p); }

// Large pages on Windows need a privilege ordinary users do not hold
// (SeLockMemoryPrivilege): blocks stay on ordinary pages.
void advise_huge_pages(void*, std::size_t) {}

void reserve_heap_on_huge_pages(std::size_t, std::size_t) {}

}  // namespace winml

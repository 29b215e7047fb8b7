// The heap on transparent huge pages. A no-op build of a thousand models
// touches ~17 MiB of heap; faulted in 4 KiB at a time that is 4 000 page
// faults, which cost 10-40 us each in a microVM (more than the build's own
// work), and one fault per 2 MiB on huge pages. Where the kernel offers them
// only on request (THP "madvise" mode, Debian's default), this asks for them.
#pragma once

#include <cstddef>

namespace winml {

// Grows glibc's heap by `reserve` bytes at once (and by as much whenever it
// grows again), keeps blocks up to `largest_block` in it rather than in
// mappings of their own, and asks for huge pages over the reserve. Does
// nothing where any step is unavailable; memory is only committed as it is
// touched.
void use_huge_pages_for_heap(std::size_t reserve, std::size_t largest_block);

// `bytes` aligned to 64, for a buffer filled soon after (packed weights, an
// activation arena). From one huge page up it starts on a 2 MiB boundary and
// asks for huge pages, so that filling it faults once per 2 MiB instead of
// once per 4 KiB: ResNet-50's packed weights are 132 MB, 32 000 faults.
// Freed with std::free; throws std::bad_alloc when out of memory.
void* allocate_on_huge_pages(std::size_t bytes);

}  // namespace winml

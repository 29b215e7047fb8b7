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

// `bytes` aligned to 64, uninitialized, for a buffer filled soon after
// (packed weights, an activation arena, scratch). From one huge page up it
// starts on a 2 MiB boundary and asks for huge pages, so that filling it
// faults once per 2 MiB instead of once per 4 KiB: ResNet-50's packed
// weights are 132 MB, 32 000 faults. Throws std::bad_alloc when out of
// memory. Freed with free_on_huge_pages.
void* allocate_on_huge_pages(std::size_t bytes);

// Frees a block of allocate_on_huge_pages. Blocks of a huge page and up are
// kept for later requests of about their size (up to kept_huge_bytes_limit()
// in all) instead of going back to the kernel, which zeroes every page it
// hands out again, and where a virtual machine's guest has not touched a
// page before, also faults it in on the host: 1-2 GB/s, against ~13 GB/s
// for memory reused. Processes build plans of the same shapes again
// (calibration's, then the accuracy pass's) and start sessions on new
// threads. A request no kept block fits first frees kept blocks of at least
// its size, so keeping never raises the peak.
void free_on_huge_pages(void* p);

// Frees the kept blocks; returns how many bytes they held.
std::size_t release_kept_huge_blocks();

// How many bytes freed blocks may keep: 1 GiB, or 0 under AddressSanitizer,
// which must see every block freed to find uses after a free.
std::size_t kept_huge_bytes_limit();

}  // namespace winml

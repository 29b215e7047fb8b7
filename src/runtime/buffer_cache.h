// Aligned buffers for tensors the memory plan could not size in advance,
// recycled by size: models run the same shapes again and again, and fresh
// large allocations cost page faults on every run. Buffers stay cached up to
// a fixed total; beyond it they go back to the system.
#pragma once

#include <cstddef>
#include <memory>

namespace winml::runtime {

// 64-byte aligned, uninitialized; returned to the cache when released.
std::shared_ptr<void> cached_buffer(std::size_t bytes);

}  // namespace winml::runtime

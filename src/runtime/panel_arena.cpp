#include "runtime/panel_arena.h"

#include <cstdlib>

#include "base/huge_heap.h"

namespace winml::runtime {

namespace {
constexpr std::size_t kBlock = std::size_t{32} << 20;

std::shared_ptr<std::byte> huge_block(std::size_t bytes) {
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(allocate_on_huge_pages(bytes)),
                                    [](std::byte* p) { free_on_huge_pages(p); });
}
}  // namespace

std::shared_ptr<float> PanelArena::allocate(std::size_t bytes) {
  bytes = bytes ? (bytes + 63) / 64 * 64 : 64;
  // A panel of a quarter block or more gets a block of its own: carving it
  // would leave up to that much of the current block unused.
  if (bytes >= kBlock / 4) {
    auto own = huge_block(bytes);
    return std::shared_ptr<float>(own, reinterpret_cast<float*>(own.get()));
  }
  std::lock_guard lock(mutex_);
  if (!block_ || size_ - used_ < bytes) {
    block_ = huge_block(kBlock);
    used_ = 0;
    size_ = kBlock;
  }
  auto* p = reinterpret_cast<float*>(block_.get() + used_);
  used_ += bytes;
  return std::shared_ptr<float>(block_, p);
}

}  // namespace winml::runtime

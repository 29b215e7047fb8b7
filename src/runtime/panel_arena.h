// Memory for the panels of one plan's packed weights. A plan packs dozens
// to hundreds of panels (ResNet-50: 132 MB in 369 of them, 16 or 36 per
// Winograd layer), most smaller than a huge page; each in its own mapping
// would be filled 4 KiB fault by 4 KiB fault, and faults are what building a
// plan spent most of its time on in a VM. Panels are carved out of 32 MiB
// blocks on huge pages instead; each keeps its block alive, so a block is
// freed with the last plan that uses it.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>

namespace winml::runtime {

class PanelArena {
 public:
  // `bytes` aligned to 64, uninitialized.
  std::shared_ptr<float> allocate(std::size_t bytes);

 private:
  std::mutex mutex_;
  std::shared_ptr<std::byte> block_;  // the block being carved
  std::size_t used_ = 0, size_ = 0;
};

}  // namespace winml::runtime

// Per-thread scratch memory for kernels (im2col buffers and the like),
// reused across runs instead of being allocated and page-faulted each time.
#pragma once

#include <cstddef>

namespace winml::runtime {

class Scratch {
 public:
  explicit Scratch(std::size_t bytes);  // 64-byte aligned, uninitialized
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
  int slot_ = -1;  // index in the thread's cache, or -1 when heap-allocated
};

}  // namespace winml::runtime

// An owned ORT object, released through the C API's Release function for its
// type (OrtApi::ReleaseSession, OrtCompileApi::ReleaseModelCompilationOptions, ...).
#pragma once

#include <utility>

namespace winml::ort {

template <class T>
class Handle {
 public:
  using Release = void (*)(T*);

  Handle() = default;
  explicit Handle(Release release, T* p = nullptr) : release_(release), p_(p) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : release_(o.release_), p_(std::exchange(o.p_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      release_ = o.release_;
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  T* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }
  // Where a Create function writes the new object (the old one is released).
  T** out() {
    reset();
    return &p_;
  }
  void reset() {
    if (p_ && release_) release_(p_);
    p_ = nullptr;
  }

 private:
  Release release_ = nullptr;
  T* p_ = nullptr;
};

}  // namespace winml::ort

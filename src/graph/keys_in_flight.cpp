#include "graph/keys_in_flight.h"

namespace winml::graph {

KeysInFlight::Hold& KeysInFlight::Hold::operator=(Hold&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = other.owner_;
    key_ = other.key_;
    waited_ = other.waited_;
    other.owner_ = nullptr;
  }
  return *this;
}

void KeysInFlight::Hold::release() {
  if (!owner_) return;
  {
    std::lock_guard lock(owner_->mu_);
    owner_->held_.erase(key_);
  }
  owner_->released_.notify_all();
  owner_ = nullptr;
}

KeysInFlight::Hold KeysInFlight::hold(const store::Digest& key) {
  Hold h;
  std::unique_lock lock(mu_);
  while (held_.count(key)) {
    h.waited_ = true;
    released_.wait(lock);
  }
  held_.insert(key);
  h.owner_ = this;
  h.key_ = key;
  return h;
}

}  // namespace winml::graph

// Stages of one build that share a key (two models with the same export
// step) run once: the second waits for the first, then restores its result
// from the cache instead of doing the same work beside it.
#pragma once

#include <condition_variable>
#include <mutex>
#include <set>

#include "store/digest.h"

namespace winml::graph {

class KeysInFlight {
 public:
  // Holds a key from hold() until destroyed (the node ran and stored its
  // result, or failed): the next holder of the same key goes on then.
  class Hold {
   public:
    Hold() = default;
    Hold(Hold&& other) noexcept { *this = std::move(other); }
    Hold& operator=(Hold&& other) noexcept;
    ~Hold() { release(); }
    // True when another node held the key first: its result may be cached.
    bool waited() const { return waited_; }
    void release();

   private:
    friend class KeysInFlight;
    KeysInFlight* owner_ = nullptr;
    store::Digest key_;
    bool waited_ = false;
  };

  // Blocks while another node holds `key`, then holds it.
  Hold hold(const store::Digest& key);

 private:
  std::mutex mu_;
  std::condition_variable released_;
  std::set<store::Digest> held_;
};

}  // namespace winml::graph

// The clean-ups one thread registered (base/thread_exit.h), shared by both
// systems' implementations.
#pragma once

#include <utility>
#include <vector>

namespace winml {

struct ThreadExitList {
  std::vector<std::pair<void (*)(void*), void*>> items;
  // Runs them, latest first, and deletes the list.
  static void run_and_delete(void* list) {
    auto* l = static_cast<ThreadExitList*>(list);
    for (auto it = l->items.rbegin(); it != l->items.rend(); ++it) it->first(it->second);
    delete l;
  }
};

}  // namespace winml

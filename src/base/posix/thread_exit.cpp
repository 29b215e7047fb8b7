#include "base/thread_exit.h"

#include <pthread.h>

#include "base/thread_exit_list.h"

namespace winml {

void at_thread_exit(void (*fn)(void*), void* arg) {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    pthread_key_create(&k, &ThreadExitList::run_and_delete);
    return k;
  }();
  auto* list = static_cast<ThreadExitList*>(pthread_getspecific(key));
  if (!list) pthread_setspecific(key, list = new ThreadExitList);
  list->items.emplace_back(fn, arg);
}

}  // namespace winml

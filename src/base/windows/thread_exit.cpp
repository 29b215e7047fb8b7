#include "base/thread_exit.h"

#include <windows.h>

#include "base/thread_exit_list.h"

namespace winml {

namespace {
void WINAPI run_list(void* list) {
  if (list) ThreadExitList::run_and_delete(list);
}
}  // namespace

void at_thread_exit(void (*fn)(void*), void* arg) {
  // Fiber-local storage's callback runs when a thread ends (and for each
  // thread still alive when the module is unloaded), before the C runtime's
  // thread-local storage goes.
  static const DWORD index = FlsAlloc(run_list);
  auto* list = static_cast<ThreadExitList*>(FlsGetValue(index));
  if (!list) FlsSetValue(index, list = new ThreadExitList);
  list->items.emplace_back(fn, arg);
}

}  // namespace winml

// An object of the calling thread's own, made on first use and deleted when
// the thread ends (base/thread_exit.h: MinGW's thread_local cannot hold an
// object with a destructor). The main thread's lives as long as the process.
#pragma once

#include "base/thread_exit.h"

namespace winml {

template <class T>
T& thread_owned() {
  thread_local T* object = nullptr;
  if (!object) {
    object = new T();
    at_thread_exit([](void* p) { delete static_cast<T*>(p); }, object);
  }
  return *object;
}

}  // namespace winml

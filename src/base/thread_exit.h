// Work done when a thread ends: what a thread_local object's destructor
// would do, without one. MinGW's emulated thread-local storage may free a
// thread's variables before their destructors run, so thread-local objects
// with destructors are not used; this runs the clean-up from the system's
// own hook instead (base/posix/thread_exit.cpp: a pthread key's destructor;
// base/windows/thread_exit.cpp: a fiber-local storage callback).
#pragma once

namespace winml {

// Runs `fn(arg)` when the calling thread ends, once per call, latest first.
void at_thread_exit(void (*fn)(void*), void* arg);

}  // namespace winml

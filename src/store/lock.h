// An exclusive lock on an output directory, so that two winml-make processes
// never build into the same place at once; and the cache's lock, shared by
// the builds using it and exclusive for `cache gc` and `cache verify`. It is an flock(2) on a file, so
// the kernel releases it when its holder dies, even by SIGKILL: there are no
// stale locks to clean up.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace winml::store {

enum class LockMode {
  kExclusive,  // one holder, who writes "pid N" into the file for the waiters' messages
  kShared,     // any number of holders at once, none while an exclusive one holds it
};

class DirectoryLock {
 public:
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  // Takes the lock on `lock_file` (created if needed). When another process
  // holds it, calls `on_wait(holder)` once (holder: "pid N" as written by
  // that process) and waits. Throws BuildError after `timeout_seconds`
  // (negative: wait forever) and returns nullptr when `*cancel` becomes true.
  static std::unique_ptr<DirectoryLock> acquire(const std::filesystem::path& lock_file,
                                                const std::function<void(const std::string&)>& on_wait,
                                                double timeout_seconds = -1, const std::atomic<bool>* cancel = nullptr,
                                                LockMode mode = LockMode::kExclusive);

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace winml::store

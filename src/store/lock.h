// An exclusive lock on an output directory, so that two winml-make processes
// never build into the same place at once; and the cache's lock, shared by
// the builds using it and exclusive for `cache gc` and `cache verify`. It is a lock on a file (flock;
// LockFileEx on Windows: native::try_lock), so the system releases it when
// its holder dies, even killed: there are no
// stale locks to clean up. An exclusive holder also says in the file that it
// is working, and that it is done when it lets go: a process killed while
// holding the lock leaves "working" behind for the next holder to see (and to
// sweep up after), without a marker file to create and delete on every build.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace winml::store {

enum class LockMode {
  kExclusive,  // one holder, who writes "pid N" and "working" into the file
  kShared,     // any number of holders at once, none while an exclusive one holds it
};

class DirectoryLock {
 public:
  // An exclusive holder writes "done" into the file here.
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

  // The exclusive holder before this one let go without saying it was done:
  // it was killed while working.
  bool last_holder_was_killed() const { return last_holder_killed_; }

 private:
  DirectoryLock(int fd, LockMode mode, bool last_holder_killed)
      : fd_(fd), mode_(mode), last_holder_killed_(last_holder_killed) {}
  int fd_ = -1;
  LockMode mode_;
  bool last_holder_killed_ = false;
};

}  // namespace winml::store

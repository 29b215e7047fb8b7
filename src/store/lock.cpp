#include "store/lock.h"

#include <chrono>
#include <string_view>
#include <thread>

#include "base/error.h"
#include "base/native_file.h"
#include "base/this_process.h"
#include "base/path_text.h"

namespace winml::store {

namespace fs = std::filesystem;

namespace {

// The file: "pid N", padded with spaces, and a newline; then the holder's
// state, also of a fixed length, so that each write replaces the last one's
// bytes without truncating (which on a file system mounted with online
// discard waits for the disk: a whole no-op build's worth of time).
constexpr std::size_t kHolderLength = 32;
constexpr std::string_view kWorking = "working\n";
constexpr std::string_view kDone = "done   \n";

std::string holder_of(int fd) {
  char buf[kHolderLength + 1] = {};
  const long long n = native::read_at(fd, buf, kHolderLength, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s.empty() ? "another process" : s;
}

bool says_working(int fd) {
  char buf[kWorking.size()] = {};
  return native::read_at(fd, buf, sizeof buf, kHolderLength) == static_cast<long long>(sizeof buf) &&
         std::string_view(buf, sizeof buf) == kWorking;
}

}  // namespace

DirectoryLock::~DirectoryLock() {
  if (fd_ < 0) return;
  if (mode_ == LockMode::kExclusive) (void)native::write_all_at(fd_, kDone.data(), kDone.size(), kHolderLength);
  native::close(fd_);  // closing the descriptor releases the lock
}

std::unique_ptr<DirectoryLock> DirectoryLock::acquire(const fs::path& lock_file,
                                                      const std::function<void(const std::string&)>& on_wait,
                                                      double timeout_seconds, const std::atomic<bool>* cancel,
                                                      LockMode mode) {
  // A path through a file, or no permission: the directory was named wrongly.
  std::error_code ec;
  fs::create_directories(lock_file.parent_path(), ec);
  if (ec) throw InputError(file_error(to_utf8(lock_file.parent_path()), "cannot create the directory: " + ec.message()));
  const int fd = native::open_read_write(lock_file);
  if (fd < 0) throw BuildError(file_error(to_utf8(lock_file), "cannot open lock: " + native::last_error()));
  const auto start = std::chrono::steady_clock::now();
  bool told = false;
  // Polling rather than a blocking flock: the wait stays interruptible and can time out.
  const native::Lock how = mode == LockMode::kShared ? native::Lock::kShared : native::Lock::kExclusive;
  for (native::Locked got; (got = native::try_lock(fd, how)) != native::Locked::kYes;) {
    if (got == native::Locked::kFailed) {
      const std::string why = native::last_error();
      native::close(fd);
      throw BuildError(file_error(to_utf8(lock_file), "cannot lock: " + why));
    }
    if (!told && on_wait) on_wait(holder_of(fd));
    told = true;
    if (cancel && cancel->load()) {
      native::close(fd);
      return nullptr;
    }
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout_seconds >= 0 && waited >= timeout_seconds) {
      std::string holder = holder_of(fd);
      native::close(fd);
      throw BuildError(file_error(to_utf8(lock_file), "still locked by " + holder + " after " +
                                                          std::to_string(static_cast<int>(waited)) +
                                                          " s; another winml-make is building into this directory"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  bool killed = false;
  if (mode == LockMode::kExclusive) {
    killed = says_working(fd);
    std::string me = "pid " + std::to_string(current_process_id());
    me.resize(kHolderLength - 1, ' ');
    me += '\n';
    me += kWorking;
    (void)native::write_all_at(fd, me.data(), me.size(), 0);
  }
  return std::unique_ptr<DirectoryLock>(new DirectoryLock(fd, mode, killed));
}

}  // namespace winml::store

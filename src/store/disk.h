// The file-system operations the build engine needs, behind an interface so
// that the stat cache and staleness logic can be tested against a fake disk
// with controlled timestamps (ninja's DiskInterface is the model).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/native_file.h"
#include "store/digest.h"

namespace winml::store {

namespace fs = std::filesystem;

// What the stat cache compares to decide whether a file may have changed.
struct FileStat {
  bool exists = false;
  bool is_dir = false;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t inode = 0;
  std::uint64_t device = 0;

  // Same file, same metadata: content is assumed unchanged (subject to the
  // racily-clean rule in StatCache).
  bool same_identity(const FileStat& o) const {
    return exists == o.exists && size == o.size && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns &&
           inode == o.inode && device == o.device;
  }
};

// What a folder entry is, as it is: a symlink is kOther whatever it points to.
enum class EntryKind { kFile, kDirectory, kOther };  // kOther: symlink, FIFO, socket, device

struct DirEntry {
  std::string name;
  EntryKind kind = EntryKind::kOther;
};

// A file records are appended to (the build journal).
class AppendFile {
 public:
  virtual ~AppendFile() = default;
  // One write per record: a crash leaves it whole or torn, never interleaved.
  virtual void append(std::string_view record) = 0;
};

class DiskInterface {
 public:
  virtual ~DiskInterface() = default;
  // Follows symlinks; `exists == false` when the path is missing. Takes the
  // path as a string: building a std::filesystem::path splits it into
  // components, which costs more than the stat itself on the no-op path.
  virtual FileStat stat(const std::string& path) const = 0;
  // Content digest; throws InputError naming the file when unreadable.
  virtual Digest hash(const fs::path& path, std::uint64_t* bytes_hashed,
                      std::atomic<std::uint64_t>* progress = nullptr) const = 0;
  // Whole file; throws InputError naming the file when unreadable.
  virtual std::string read(const fs::path& path) const = 0;
  // The file's bytes in `view`, valid while the returned handle lives: read,
  // not mapped (the plan and the state are read whole on every build, and a
  // mapping costs a page fault per 64 KiB touched, 20-30 us each where faults
  // are dear, and more system calls than one read). From kMapFromBytes up,
  // RealDisk maps it: a buffer that large is a mapping of its own outside
  // the heap (base/huge_heap.h), one fault per 4 KiB, 16 times as many.
  // (Not on Windows, where a mapped file cannot be replaced by the next save.)
  static constexpr std::uint64_t kMapFromBytes = 4u << 20;
  virtual std::shared_ptr<const void> view(const fs::path& path, std::string_view& view) const;
  // stat() of `relative` inside `base_dir`, resolved from a cached handle on
  // the directory (a shorter path walk: most of a stat's cost on the no-op path).
  virtual FileStat stat_in(const std::string& base_dir, std::string_view relative) const;
  // temp + fsync + rename.
  virtual void write_atomic(const fs::path& path, std::string_view contents) = 0;
  // Replaces `to` atomically (a copy when the two are on different file
  // systems); durable once sync_directory() of its folder returns.
  virtual void rename(const fs::path& from, const fs::path& to) = 0;
  virtual void sync_directory(const fs::path& dir) = 0;
  virtual void make_directories(const fs::path& dir) = 0;
  // Missing files are fine.
  virtual void remove(const fs::path& path) = 0;
  // A folder and everything in it; a missing one is fine.
  virtual void remove_tree(const fs::path& dir) = 0;
  // Opens an existing file for appending after cutting it to `valid_size`
  // bytes (a torn tail a crash left).
  virtual std::unique_ptr<AppendFile> open_append(const fs::path& path, std::uint64_t valid_size) = 0;
  // Regular files below `dir` (recursive), sorted, relative to `dir`.
  virtual std::vector<std::string> list_files(const fs::path& dir) const = 0;
  // The entries directly in `dir`, symlinks not followed, sorted by name;
  // none when `dir` is missing or not a folder. What the sweeps after a
  // killed build look through.
  virtual std::vector<DirEntry> list_dir(const fs::path& dir) const = 0;
  // Wall-clock time in the file system's time base (CLOCK_REALTIME), ns.
  virtual std::int64_t now_ns() const = 0;

  // What the cache and the output directory's guard need besides:
  // Makes `to` hold the bytes of `from` through a temporary renamed into
  // place: a hard link where the file system allows (no bytes copied), else
  // a copy.
  virtual void link_or_copy(const fs::path& from, const fs::path& to) = 0;
  // A regular file itself, not a symlink to one nor anything else.
  virtual bool is_plain_file(const fs::path& path) const = 0;
  // Sets the file's mtime to now (the cache's last use).
  virtual void touch(const fs::path& path) = 0;
  // Read-only for everyone (the cache's blobs).
  virtual void make_read_only(const fs::path& path) = 0;
  // Removes a file or a symlink, never a folder; false when none was there.
  virtual bool remove_file(const fs::path& path) = 0;
  // Absolute, with the symlinks of the part that exists resolved.
  virtual fs::path resolve(const fs::path& path) const = 0;
};

// The real file system.
class RealDisk : public DiskInterface {
 public:
  FileStat stat(const std::string& path) const override;
  Digest hash(const fs::path& path, std::uint64_t* bytes_hashed,
              std::atomic<std::uint64_t>* progress = nullptr) const override;
  std::string read(const fs::path& path) const override;
  std::shared_ptr<const void> view(const fs::path& path, std::string_view& view) const override;
  FileStat stat_in(const std::string& base_dir, std::string_view relative) const override;
  ~RealDisk() override;
  void write_atomic(const fs::path& path, std::string_view contents) override;
  void rename(const fs::path& from, const fs::path& to) override;
  void sync_directory(const fs::path& dir) override;
  void make_directories(const fs::path& dir) override;
  void remove(const fs::path& path) override;
  void remove_tree(const fs::path& dir) override;
  std::unique_ptr<AppendFile> open_append(const fs::path& path, std::uint64_t valid_size) override;
  std::vector<std::string> list_files(const fs::path& dir) const override;
  std::vector<DirEntry> list_dir(const fs::path& dir) const override;
  std::int64_t now_ns() const override;
  void link_or_copy(const fs::path& from, const fs::path& to) override;
  bool is_plain_file(const fs::path& path) const override;
  void touch(const fs::path& path) override;
  void make_read_only(const fs::path& path) override;
  bool remove_file(const fs::path& path) override;
  fs::path resolve(const fs::path& path) const override;

 private:
  mutable std::mutex mu_;
  mutable native::Directory dir_;  // the last base_dir of stat_in
  mutable bool dir_open_ = false;
};

// The process-wide real disk.
RealDisk& real_disk();

}  // namespace winml::store

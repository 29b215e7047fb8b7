// Content digests through a stat cache: a file is re-hashed only when its
// (size, mtime, ctime, inode, device) differ from what was recorded with its
// digest, so `touch` costs one re-hash and never a rebuild.
//
// Racily clean (git's rule): a file modified within the file system's
// timestamp granularity of the moment its digest was recorded could change
// again without its mtime moving. Such entries are not trusted; they are
// re-hashed on the next lookup and then re-stamped, after which they are
// trusted.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/path_text.h"
#include "store/digest.h"
#include "store/disk.h"

namespace winml::store {

class StateImage;

struct StatEntry {
  FileStat stat;
  Digest digest;
  std::int64_t stamp_ns = 0;  // wall clock before the stat that `digest` belongs to
};

// How close to the stamp a modification may be before the entry is racy:
// 2 s for file systems with whole-second timestamps (FAT, ext3, some network
// file systems: recognised by a zero sub-second part), else 50 ms, well above
// the kernel's coarse clock tick that fine-grained file systems stamp with.
std::int64_t racy_window_ns(std::int64_t mtime_ns);
bool is_racily_clean(const StatEntry& e);

class StatCache {
 public:
  // Paths inside `base` are stored relative to it, so that the cache survives
  // a move of the whole tree; others are stored absolute.
  StatCache(DiskInterface& disk, fs::path base);

  // The content digest, or nullopt if the file does not exist. Hashes only
  // when the stat changed or the entry is racily clean; `bytes_hashed`
  // counts what was read.
  std::optional<Digest> digest(const std::string& path, std::uint64_t* bytes_hashed = nullptr);
  std::optional<Digest> digest(const fs::path& path, std::uint64_t* bytes_hashed = nullptr) {
    return digest(to_utf8(path), bytes_hashed);
  }
  std::optional<Digest> digest(const char* path, std::uint64_t* bytes_hashed = nullptr) {
    return digest(std::string(path), bytes_hashed);
  }

  // Stats the file of every loaded entry ahead of the lookups a build makes,
  // on other threads while this one goes on (parsing the plan): a no-op
  // build is mostly stat calls, and they run in parallel this way. Each
  // stat taken ahead serves one lookup of its file, until this process
  // records or forgets any file; the first lookup waits for the threads,
  // and helps them.
  // `threads`: 0 for one per core. Below kFilesWorthThreads entries it
  // does nothing: on two cores, a no-op build of 100 models (900 files)
  // spent 1.0 ms more CPU with the threads (7.9 ms against 6.9) and
  // finished no sooner; from about a thousand models they cost nothing.
  static constexpr std::size_t kFilesWorthThreads = 4096;
  void start_prefetch(unsigned threads = 0);
  // Waits for (and helps) the threads start_prefetch started, if any.
  void wait_prefetch();

  // Records the digest of a file this process has just written (stat taken now).
  void record(const fs::path& path, const Digest& digest, std::int64_t stamp_ns);
  void forget(const fs::path& path);

  // Persistence (the build state stores the entries). The stored snapshot's
  // entries are looked up where they lie in its image; an entry this process
  // changes or drops is superseded there and kept in a map of its own.
  void set_base(std::shared_ptr<const StateImage> image);
  void load(std::string key, const StatEntry& e);
  std::map<std::string, StatEntry> entries() const;
  bool dirty() const { return dirty_; }
  void mark_clean() { dirty_ = false; }
  // Drops entries not looked up or recorded since construction (files that
  // left the build), so the stored cache does not grow without bound.
  void prune_unused();

  std::string key_of(const fs::path& path) const;
  // key_of without a copy when the path is plainly inside the base (the usual case).
  std::string_view key_view(const std::string& path, std::string& storage) const;
  ~StatCache();

  // Called before a file is hashed, with its size, and a counter of bytes
  // hashed that grows while it is read (for progress display).
  std::function<void(const fs::path&, std::uint64_t)> on_hash_start;
  std::atomic<std::uint64_t>* hash_progress = nullptr;

  std::uint64_t files_hashed() const { return files_hashed_; }
  std::uint64_t bytes_hashed() const { return bytes_hashed_; }

 private:
  DiskInterface& disk_;
  fs::path base_;
  std::string base_prefix_;  // base_ + '/'
  std::string base_dir_;     // base_, normalized, without a trailing '/'
  mutable std::mutex mu_;
  struct Slot {
    StatEntry entry;
    bool used = false;               // looked up or recorded by this process
    std::optional<FileStat> ahead;  // taken by start_prefetch, not used yet
  };
  FileStat stat_key(std::string_view key) const;
  // The base row of `key`, unless superseded; kNoRow if none. Caller holds mu_.
  static constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);
  std::size_t base_row(std::string_view key) const;
  bool supersede_base(std::string_view key);
  std::shared_ptr<const StateImage> image_base_;
  enum : std::uint8_t { kUsed = 1, kGone = 2 };
  std::vector<std::uint8_t> base_flags_;               // per base row
  std::vector<std::optional<FileStat>> base_ahead_;  // per base row, while stats are taken ahead
  void prefetch_some();
  struct Prefetch;
  std::unique_ptr<Prefetch> prefetch_;
  std::mutex prefetch_mu_;
  std::atomic<bool> prefetch_running_{false};
  // Stats taken ahead are good until this process changes a file it tracks.
  std::atomic<bool> ahead_valid_{false};
  std::int64_t ahead_stamp_ = 0;
  // Transparent hashing: lookups by string_view build no temporary string.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Slot, Hash, std::equal_to<>> entries_;
  std::atomic<bool> dirty_{false};
  std::atomic<std::uint64_t> files_hashed_{0}, bytes_hashed_{0};
};

}  // namespace winml::store

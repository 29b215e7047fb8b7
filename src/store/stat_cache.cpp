#include "store/stat_cache.h"

#include "base/path_text.h"
#include "store/state_image.h"

#include <algorithm>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace winml::store {

std::int64_t racy_window_ns(std::int64_t mtime_ns) {
  constexpr std::int64_t kSecond = 1000000000;
  return mtime_ns % kSecond == 0 ? 2 * kSecond : 50000000;
}

bool is_racily_clean(const StatEntry& e) {
  std::int64_t changed = std::max(e.stat.mtime_ns, e.stat.ctime_ns);
  return changed + racy_window_ns(e.stat.mtime_ns) >= e.stamp_ns;
}

StatCache::StatCache(DiskInterface& disk, fs::path base) : disk_(disk), base_(std::move(base)) {
  base_prefix_ = base_.lexically_normal().generic_string();
  base_dir_ = base_prefix_;
  while (base_dir_.size() > 1 && base_dir_.back() == '/') base_dir_.pop_back();
  if (!base_prefix_.empty() && base_prefix_.back() != '/') base_prefix_ += '/';
}

std::string StatCache::key_of(const fs::path& path) const {
  const std::string& raw = to_utf8(path);
  // Paths the engine builds are already normal; normalize only when needed.
  bool plain = raw.find("/.") == std::string::npos && raw.find("//") == std::string::npos;
  std::string p = plain ? raw : path.lexically_normal().generic_string();
  if (!base_prefix_.empty() && p.size() > base_prefix_.size() && p.compare(0, base_prefix_.size(), base_prefix_) == 0)
    return p.substr(base_prefix_.size());
  return p;
}

std::string_view StatCache::key_view(const std::string& raw, std::string& storage) const {
  if (!base_prefix_.empty() && raw.size() > base_prefix_.size() &&
      raw.compare(0, base_prefix_.size(), base_prefix_) == 0 && raw.find("/.") == std::string::npos &&
      raw.find("//") == std::string::npos)
    return std::string_view(raw).substr(base_prefix_.size());
  storage = key_of(from_utf8(raw));
  return storage;
}

struct StatCache::Prefetch {
  std::vector<std::pair<std::string_view, std::optional<FileStat>*>> todo;  // key, where its stat goes
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
};

StatCache::~StatCache() { wait_prefetch(); }

// A key is relative to the base, or an absolute path (key_of).
FileStat StatCache::stat_key(std::string_view key) const {
  return key.starts_with('/') ? disk_.stat(std::string(key)) : disk_.stat_in(base_dir_, key);
}

void StatCache::start_prefetch(unsigned threads) {
  wait_prefetch();
  constexpr std::size_t kFilesPerThread = 256;
  auto p = std::make_unique<Prefetch>();
  {
    std::lock_guard lock(mu_);
    const std::size_t base_rows = image_base_ ? image_base_->stat_count() : 0;
    if (entries_.size() + base_rows < kFilesWorthThreads) return;
    p->todo.reserve(entries_.size() + base_rows);
    for (auto& [key, slot] : entries_) p->todo.emplace_back(key, &slot.ahead);
    base_ahead_.assign(base_rows, std::nullopt);
    for (std::size_t i = 0; i < base_rows; ++i)
      if (!(base_flags_[i] & kGone)) p->todo.emplace_back(image_base_->stat_key(i), &base_ahead_[i]);
  }
  if (threads == 0) threads = std::thread::hardware_concurrency();  // reads /sys: only for a big state
  threads = std::max<unsigned>(1, std::min<unsigned>(threads, static_cast<unsigned>(p->todo.size() / kFilesPerThread)));
  ahead_stamp_ = disk_.now_ns();  // before every stat taken ahead: the racily-clean rule compares with it
  prefetch_ = std::move(p);
  prefetch_running_ = true;
  try {
    for (unsigned t = 0; t < threads; ++t) prefetch_->threads.emplace_back([this] { prefetch_some(); });
  } catch (const std::system_error&) {
    // No thread to be had (a process limit): the first lookup stats them all.
  }
}

// Slots are not inserted or erased while the threads run: every other
// member function waits for them first.
void StatCache::prefetch_some() {
  constexpr std::size_t kBatch = 32;
  auto& p = *prefetch_;
  for (std::size_t i; (i = p.next.fetch_add(kBatch, std::memory_order_relaxed)) < p.todo.size();) {
    for (std::size_t j = i; j < std::min(i + kBatch, p.todo.size()); ++j) {
      *p.todo[j].second = stat_key(p.todo[j].first);
    }
  }
}

void StatCache::wait_prefetch() {
  if (!prefetch_running_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(prefetch_mu_);
  if (!prefetch_) return;
  prefetch_some();  // help with what is left
  for (auto& t : prefetch_->threads) t.join();
  prefetch_.reset();
  ahead_valid_ = true;
  prefetch_running_.store(false, std::memory_order_release);
}

std::optional<Digest> StatCache::digest(const std::string& path, std::uint64_t* bytes_hashed) {
  wait_prefetch();
  std::string storage;
  const std::string_view key = key_view(path, storage);
  std::int64_t stamp = disk_.now_ns();
  auto stat_now = [&] { return stat_key(key); };
  std::unique_lock lock(mu_);
  auto it = entries_.find(key);
  std::size_t row = it == entries_.end() ? base_row(key) : kNoRow;
  std::optional<FileStat> ahead;
  if (it != entries_.end()) ahead = std::exchange(it->second.ahead, std::nullopt);
  else if (row != kNoRow && !base_ahead_.empty()) ahead = std::exchange(base_ahead_[row], std::nullopt);
  FileStat st;
  if (ahead && ahead_valid_.load(std::memory_order_relaxed)) {
    st = *ahead;
    stamp = ahead_stamp_;
  } else {
    lock.unlock();
    st = stat_now();
    lock.lock();
    it = entries_.find(key);
    row = it == entries_.end() ? base_row(key) : kNoRow;
  }
  if (!st.exists || st.is_dir) {
    if (it != entries_.end()) {
      entries_.erase(it);
      dirty_ = true;
    }
    if (row != kNoRow) {
      base_flags_[row] |= kGone;
      dirty_ = true;
    }
    return std::nullopt;
  }
  std::optional<StatEntry> known;
  if (it != entries_.end()) {
    it->second.used = true;
    known = it->second.entry;
  } else if (row != kNoRow) {
    base_flags_[row] |= kUsed;
    known = image_base_->stat(row);
  }
  if (known && known->stat.same_identity(st) && !is_racily_clean(*known)) return known->digest;
  lock.unlock();
  if (on_hash_start) on_hash_start(from_utf8(path), st.size);
  std::uint64_t n = 0;
  Digest d = disk_.hash(from_utf8(path), &n, hash_progress);
  if (bytes_hashed) *bytes_hashed += n;
  files_hashed_ += 1;
  bytes_hashed_ += n;
  // A file that changed while it was read gets no entry: the next lookup hashes again.
  FileStat after = stat_now();
  lock.lock();
  supersede_base(key);
  if (after.same_identity(st)) entries_[std::string(key)] = Slot{StatEntry{st, d, stamp}, true};
  else if (auto it = entries_.find(key); it != entries_.end()) entries_.erase(it);
  dirty_ = true;
  return d;
}

void StatCache::record(const fs::path& path, const Digest& digest, std::int64_t stamp_ns) {
  wait_prefetch();
  ahead_valid_ = false;
  FileStat st = disk_.stat(to_utf8(path));
  const std::string key = key_of(path);
  std::lock_guard lock(mu_);
  supersede_base(key);
  if (st.exists) entries_[key] = Slot{StatEntry{st, digest, stamp_ns}, true};
  else entries_.erase(key);
  dirty_ = true;
}

void StatCache::forget(const fs::path& path) {
  wait_prefetch();
  ahead_valid_ = false;
  const std::string key = key_of(path);
  std::lock_guard lock(mu_);
  const bool in_base = supersede_base(key);
  if (entries_.erase(key) || in_base) dirty_ = true;
}

void StatCache::load(std::string key, const StatEntry& e) {
  wait_prefetch();
  std::lock_guard lock(mu_);
  supersede_base(key);
  entries_[std::move(key)] = Slot{e, false};
}

void StatCache::set_base(std::shared_ptr<const StateImage> image) {
  wait_prefetch();
  std::lock_guard lock(mu_);
  image_base_ = std::move(image);
  base_flags_.assign(image_base_ ? image_base_->stat_count() : 0, 0);
  base_ahead_.clear();
}

std::size_t StatCache::base_row(std::string_view key) const {
  if (!image_base_) return kNoRow;
  const std::size_t row = image_base_->find_stat(key);
  return row == StateImage::kNotFound || (base_flags_[row] & kGone) ? kNoRow : row;
}

bool StatCache::supersede_base(std::string_view key) {
  const std::size_t row = base_row(key);
  if (row == kNoRow) return false;
  base_flags_[row] |= kGone;
  return true;
}

std::map<std::string, StatEntry> StatCache::entries() const {
  const_cast<StatCache*>(this)->wait_prefetch();
  std::lock_guard lock(mu_);
  std::map<std::string, StatEntry> out;
  for (const auto& [k, slot] : entries_) out.emplace(k, slot.entry);
  for (std::size_t i = 0; i < base_flags_.size(); ++i)
    if (!(base_flags_[i] & kGone)) out.emplace(image_base_->stat_key(i), image_base_->stat(i));
  return out;
}

void StatCache::prune_unused() {
  wait_prefetch();
  std::lock_guard lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (!it->second.used) {
      it = entries_.erase(it);
      dirty_ = true;
    } else {
      ++it;
    }
  }
  for (auto& flags : base_flags_) {
    if (!(flags & (kUsed | kGone))) {
      flags |= kGone;
      dirty_ = true;
    }
  }
}

}  // namespace winml::store

#include "store/stat_cache.h"

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
  const std::string& raw = path.native();
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
  storage = key_of(fs::path(raw));
  return storage;
}

struct StatCache::Prefetch {
  std::vector<std::pair<const std::string*, Slot*>> todo;
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
    if (entries_.size() < kFilesWorthThreads) return;
    p->todo.reserve(entries_.size());
    for (auto& [key, slot] : entries_) p->todo.emplace_back(&key, &slot);
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
      p.todo[j].second->ahead = stat_key(*p.todo[j].first);
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
  std::optional<FileStat> ahead;
  if (it != entries_.end()) ahead = std::exchange(it->second.ahead, std::nullopt);
  FileStat st;
  if (ahead && ahead_valid_.load(std::memory_order_relaxed)) {
    st = *ahead;
    stamp = ahead_stamp_;
  } else {
    lock.unlock();
    st = stat_now();
    lock.lock();
    it = entries_.find(key);
  }
  if (!st.exists || st.is_dir) {
    if (it != entries_.end()) {
      entries_.erase(it);
      dirty_ = true;
    }
    return std::nullopt;
  }
  if (it != entries_.end()) {
    it->second.used = true;
    if (it->second.entry.stat.same_identity(st) && !is_racily_clean(it->second.entry)) return it->second.entry.digest;
  }
  lock.unlock();
  if (on_hash_start) on_hash_start(fs::path(path), st.size);
  std::uint64_t n = 0;
  Digest d = disk_.hash(path, &n, hash_progress);
  if (bytes_hashed) *bytes_hashed += n;
  files_hashed_ += 1;
  bytes_hashed_ += n;
  // A file that changed while it was read gets no entry: the next lookup hashes again.
  FileStat after = stat_now();
  lock.lock();
  if (after.same_identity(st)) entries_[std::string(key)] = Slot{StatEntry{st, d, stamp}, true};
  else if (auto it = entries_.find(key); it != entries_.end()) entries_.erase(it);
  dirty_ = true;
  return d;
}

void StatCache::record(const fs::path& path, const Digest& digest, std::int64_t stamp_ns) {
  wait_prefetch();
  ahead_valid_ = false;
  FileStat st = disk_.stat(path.native());
  const std::string key = key_of(path);
  std::lock_guard lock(mu_);
  if (st.exists) entries_[key] = Slot{StatEntry{st, digest, stamp_ns}, true};
  else entries_.erase(key);
  dirty_ = true;
}

void StatCache::forget(const fs::path& path) {
  wait_prefetch();
  ahead_valid_ = false;
  const std::string key = key_of(path);
  std::lock_guard lock(mu_);
  if (entries_.erase(key)) dirty_ = true;
}

void StatCache::load(std::string key, const StatEntry& e) {
  wait_prefetch();
  std::lock_guard lock(mu_);
  entries_[std::move(key)] = Slot{e, false};
}

std::map<std::string, StatEntry> StatCache::entries() const {
  const_cast<StatCache*>(this)->wait_prefetch();
  std::lock_guard lock(mu_);
  std::map<std::string, StatEntry> out;
  for (const auto& [k, slot] : entries_) out.emplace(k, slot.entry);
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
}

}  // namespace winml::store

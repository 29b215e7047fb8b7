// An in-memory DiskInterface (ninja's VirtualFileSystem): files and folders
// in maps, a settable clock and explicit timestamps. The stat cache's
// racily-clean rule is tested on it without sleeping, and the builder runs
// whole builds on it without touching the real file system.
#pragma once

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/path_text.h"
#include "store/disk.h"

namespace winml::test {

class FakeDisk : public store::DiskInterface {
 public:
  // A path's key in the maps: its text as the engine writes it (UTF-8, '/'
  // between names), whichever form the caller had (on Windows, `dir / name`
  // puts a backslash in between).
  static std::string key(const std::filesystem::path& p) { return to_utf8(p); }
  static std::string key(const std::string& p) { return to_utf8(from_utf8(p)); }
  static std::string key(const char* p) { return key(std::string(p)); }

  struct File {
    std::string data;
    store::FileStat stat;
  };
  std::map<std::string, File> files;
  std::set<std::string> dirs;
  // Entries that are neither files nor folders (symlinks, FIFOs): listed,
  // never read.
  std::set<std::string> others;
  std::int64_t clock_ns = 1'700'000'000'123'456'789;
  mutable int hash_calls = 0;
  mutable std::atomic<int> stat_calls{0};
  int syncs = 0;
  std::uint64_t next_inode = 100;
  mutable std::recursive_mutex mu;  // builds run nodes on several threads

  // Writes `data` with mtime = ctime = now (the file system's clock).
  void put(const std::string& given_path, const std::string& data) {
    std::lock_guard lock(mu);
    const std::string path = key(given_path);
    File& f = files[path];
    f.data = data;
    f.stat.exists = true;
    f.stat.size = data.size();
    f.stat.mtime_ns = f.stat.ctime_ns = clock_ns;
    if (!f.stat.inode) f.stat.inode = next_inode++;
    for (auto p = from_utf8(path).parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
      dirs.insert(key(p));
  }
  void advance_ms(std::int64_t ms) { clock_ns += ms * 1'000'000; }

  store::FileStat stat(const std::string& given_path) const override {
    ++stat_calls;
    std::lock_guard lock(mu);
    const std::string p = key(given_path);
    auto it = files.find(p);
    if (it != files.end()) return it->second.stat;
    store::FileStat s;
    if (dirs.count(p)) s.exists = s.is_dir = true;
    return s;
  }
  store::Digest hash(const std::filesystem::path& p, std::uint64_t* n,
                     std::atomic<std::uint64_t>* progress = nullptr) const override {
    std::lock_guard lock(mu);
    ++hash_calls;
    const auto& d = at(p).data;
    if (n) *n += d.size();
    if (progress) *progress += d.size();
    return store::digest_of(d);
  }
  std::string read(const std::filesystem::path& p) const override {
    std::lock_guard lock(mu);
    ++reads[key(p)];
    return at(p).data;
  }
  mutable std::map<std::string, int> reads;  // per path
  void write_atomic(const std::filesystem::path& p, std::string_view c) override { put(key(p), std::string(c)); }
  void rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    std::lock_guard lock(mu);
    File f = at(from);
    files.erase(key(from));
    f.stat.ctime_ns = clock_ns;
    files[key(to)] = f;
    dirs.insert(key(to.parent_path()));
  }
  void sync_directory(const std::filesystem::path&) override {
    std::lock_guard lock(mu);
    ++syncs;
  }
  void make_directories(const std::filesystem::path& dir) override {
    std::lock_guard lock(mu);
    for (auto p = dir; !p.empty() && p != p.root_path(); p = p.parent_path()) dirs.insert(key(p));
  }
  // A file, or an empty folder (as remove(3)).
  void remove(const std::filesystem::path& p) override {
    std::lock_guard lock(mu);
    files.erase(key(p));
    others.erase(key(p));
    if (list_dir(p).empty()) dirs.erase(key(p));
  }
  void remove_tree(const std::filesystem::path& dir) override {
    std::lock_guard lock(mu);
    const std::string prefix = key(dir) + "/";
    auto inside = [&](const std::string& path) { return path == key(dir) || path.rfind(prefix, 0) == 0; };
    std::erase_if(files, [&](const auto& f) { return inside(f.first); });
    std::erase_if(others, inside);
    std::erase_if(dirs, inside);
  }
  std::unique_ptr<store::AppendFile> open_append(const std::filesystem::path& p, std::uint64_t valid) override {
    std::lock_guard lock(mu);
    File& f = const_cast<File&>(at(p));
    f.data.resize(valid);
    f.stat.size = valid;
    struct Appender : store::AppendFile {
      FakeDisk* disk;
      std::string path;
      void append(std::string_view record) override {
        std::lock_guard lock(disk->mu);
        File& f = disk->files.at(path);
        f.data += record;
        f.stat.size = f.data.size();
        f.stat.mtime_ns = f.stat.ctime_ns = disk->clock_ns;
      }
    };
    auto a = std::make_unique<Appender>();
    a->disk = this;
    a->path = key(p);
    return a;
  }
  std::vector<std::string> list_files(const std::filesystem::path& dir) const override {
    std::lock_guard lock(mu);
    const std::string prefix = key(dir) + "/";
    std::vector<std::string> out;
    for (const auto& [path, f] : files)
      if (path.rfind(prefix, 0) == 0) out.push_back(path.substr(prefix.size()));
    return out;  // std::map: already sorted
  }
  std::vector<store::DirEntry> list_dir(const std::filesystem::path& dir) const override {
    std::lock_guard lock(mu);
    const std::string prefix = key(dir) + "/";
    std::map<std::string, store::EntryKind> found;  // sorted by name
    auto add = [&](const std::string& path, store::EntryKind kind) {
      if (path.size() <= prefix.size() || path.rfind(prefix, 0) != 0) return;
      const std::string rest = path.substr(prefix.size());
      const auto slash = rest.find('/');
      if (slash == std::string::npos) found.emplace(rest, kind);
      else found.emplace(rest.substr(0, slash), store::EntryKind::kDirectory);
    };
    for (const auto& [path, f] : files) add(path, store::EntryKind::kFile);
    for (const auto& d : dirs) add(d, store::EntryKind::kDirectory);
    for (const auto& o : others) add(o, store::EntryKind::kOther);
    std::vector<store::DirEntry> out;
    for (const auto& [name, kind] : found) out.push_back({name, kind});
    return out;
  }
  std::int64_t now_ns() const override { return clock_ns; }
  void link_or_copy(const std::filesystem::path& from, const std::filesystem::path& to) override {
    std::lock_guard lock(mu);
    File f = at(from);  // a hard link: the same inode and times
    files[key(to)] = f;
    for (auto p = to.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) dirs.insert(key(p));
  }
  bool is_plain_file(const std::filesystem::path& p) const override {
    std::lock_guard lock(mu);
    return files.count(key(p)) != 0;
  }
  void touch(const std::filesystem::path& p) override {
    std::lock_guard lock(mu);
    File& f = files[key(p)];
    f.stat.mtime_ns = f.stat.ctime_ns = clock_ns;
  }
  void make_read_only(const std::filesystem::path& p) override {
    std::lock_guard lock(mu);
    read_only.insert(key(p));
  }
  bool remove_file(const std::filesystem::path& p) override {
    std::lock_guard lock(mu);
    return files.erase(key(p)) + others.erase(key(p)) != 0;
  }
  std::filesystem::path resolve(const std::filesystem::path& p) const override {
    // Absolute as the system makes a path absolute (on Windows, "/x" is on the current drive).
    return std::filesystem::absolute(p.has_root_directory() ? p : std::filesystem::path("/") / p).lexically_normal();
  }
  std::set<std::string> read_only;

 private:
  const File& at(const std::filesystem::path& p) const {
    auto it = files.find(key(p));
    if (it == files.end()) throw InputError(file_error(key(p), "no such file (in the fake disk)"));
    return it->second;
  }
};

}  // namespace winml::test

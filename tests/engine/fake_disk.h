// An in-memory DiskInterface with a settable clock and explicit timestamps,
// for testing the stat cache's racily-clean rule without sleeping.
#pragma once

#include <map>
#include <string>

#include "store/disk.h"

namespace winml::test {

class FakeDisk : public store::DiskInterface {
 public:
  struct File {
    std::string data;
    store::FileStat stat;
  };
  std::map<std::string, File> files;
  std::int64_t clock_ns = 1'700'000'000'123'456'789;
  mutable int hash_calls = 0;
  std::uint64_t next_inode = 100;

  // Writes `data` with mtime = ctime = now (the file system's clock).
  void put(const std::string& path, const std::string& data) {
    File& f = files[path];
    f.data = data;
    f.stat.exists = true;
    f.stat.size = data.size();
    f.stat.mtime_ns = f.stat.ctime_ns = clock_ns;
    if (!f.stat.inode) f.stat.inode = next_inode++;
  }
  void touch(const std::string& path) { files[path].stat.mtime_ns = files[path].stat.ctime_ns = clock_ns; }
  void advance_ms(std::int64_t ms) { clock_ns += ms * 1'000'000; }

  store::FileStat stat(const std::string& p) const override {
    auto it = files.find(p);
    return it == files.end() ? store::FileStat{} : it->second.stat;
  }
  store::Digest hash(const std::filesystem::path& p, std::uint64_t* n,
                     std::atomic<std::uint64_t>* = nullptr) const override {
    ++hash_calls;
    const auto& d = files.at(p.string()).data;
    if (n) *n += d.size();
    return store::digest_of(d);
  }
  std::string read(const std::filesystem::path& p) const override { return files.at(p.string()).data; }
  void write_atomic(const std::filesystem::path& p, std::string_view c) override { put(p.string(), std::string(c)); }
  void rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    files[to.string()] = files[from.string()];
    files.erase(from.string());
  }
  void remove(const std::filesystem::path& p) override { files.erase(p.string()); }
  std::vector<std::string> list_files(const std::filesystem::path&) const override { return {}; }
  std::int64_t now_ns() const override { return clock_ns; }
};

}  // namespace winml::test

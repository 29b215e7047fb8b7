// Hashing a page-cached file: store::hash_file (XXH3-128, what every stat-cache
// miss costs) vs `cat FILE > /dev/null` (reading it and nothing else), side by
// side, median of --runs each, interleaved. Goal: >= 80% of cat's throughput.
//
// usage: bench_hash [FILE] [--size-mib N] [--runs N]
//   Without FILE, writes a temporary N MiB file (default 1024) and removes it.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/guarded_main.h"
#include "store/digest.h"
#include "store/file_hash.h"

namespace fs = std::filesystem;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double time_cat(const fs::path& file) {
  double t = now();
  pid_t pid = ::fork();
  if (pid == 0) {
    std::FILE* null = std::freopen("/dev/null", "w", stdout);
    (void)null;
    ::execlp("cat", "cat", file.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "cat failed\n");
    std::exit(1);
  }
  return now() - t;
}

int run(int argc, char** argv) {
  fs::path file;
  std::uint64_t size_mib = 1024;
  int runs = 7;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--size-mib" && i + 1 < argc) size_mib = std::stoull(argv[++i]);
    else if (a == "--runs" && i + 1 < argc) runs = std::stoi(argv[++i]);
    else file = a;
  }
  bool temporary = file.empty();
  if (temporary) {
    file = fs::temp_directory_path() / ("winml-hash-bench-" + std::to_string(::getpid()));
    std::ofstream out(file, std::ios::binary);
    std::vector<std::uint64_t> block(1 << 17);  // 1 MiB of pseudo-random words
    std::uint64_t x = 0x9e3779b97f4a7c15ull;
    for (std::uint64_t m = 0; m < size_mib; ++m) {
      for (auto& w : block) w = (x ^= x << 13, x ^= x >> 7, x ^= x << 17);
      out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size() * 8));
    }
  }
  const double bytes = static_cast<double>(fs::file_size(file));
  // Warm the page cache so every run reads from memory.
  time_cat(file);
  winml::store::hash_file(file);
  using winml::store::ReadPath;
  const std::pair<const char*, ReadPath> paths[] = {{"hash_file (measured path)", ReadPath::kAuto},
                                                    {"  read() into 256 KiB", ReadPath::kRead},
                                                    {"  mmap()", ReadPath::kMap}};
  std::vector<double> hash_t[3], cat_t;
  for (int r = 0; r < runs; ++r) {
    for (int p = 0; p < 3; ++p) {
      double t = now();
      winml::store::hash_file_via(file, paths[p].second);
      hash_t[p].push_back(now() - t);
    }
    cat_t.push_back(time_cat(file));
  }
  if (temporary) fs::remove(file);
  const double c = bytes / median(cat_t) / 1e9;
  std::printf("file: %s (%.0f MiB, page-cached), median of %d runs, interleaved\n", file.c_str(), bytes / 1048576,
              runs);
  for (int p = 0; p < 3; ++p)
    std::printf("%-28s %8.3f s %8.2f GB/s  %.2fx cat\n", paths[p].first, median(hash_t[p]),
                bytes / median(hash_t[p]) / 1e9, bytes / median(hash_t[p]) / 1e9 / c);
  std::printf("%-28s %8.3f s %8.2f GB/s\n", "cat FILE > /dev/null", median(cat_t), c);
  std::printf("measured choice on this machine: %s\n",
              winml::store::measured_read_path() == ReadPath::kMap ? "mmap" : "read");
  std::printf("throughput ratio (hash_file/cat): %.2f (goal >= 0.80)\n", bytes / median(hash_t[0]) / 1e9 / c);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return winml::bench::guarded_main(argc, argv, run); }

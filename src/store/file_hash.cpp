#include "store/file_hash.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "base/error.h"
#include "base/mapped_file.h"
#include "base/native_file.h"
#include "base/regular_file.h"
#include "base/path_text.h"

namespace winml::store {

namespace {

constexpr std::uint64_t kChunk = 4u << 20;         // progress granularity
constexpr std::uint64_t kSampleChunk = 1u << 20;   // measurement granularity: the slow path is sampled too
constexpr std::size_t kBuffer = 256u << 10;        // read() buffer: stays in L2 while hashed
constexpr std::uint64_t kMeasureFrom = 32u << 20;  // smaller files use the last choice
constexpr int kSamples = 2;                        // chunks per path while measuring

std::atomic<ReadPath> g_measured{ReadPath::kRead};

// One open file hashed chunk by chunk, each chunk through either path.
class ChunkHasher {
 public:
  ChunkHasher(int fd, std::uint64_t size, const std::filesystem::path& path, Hasher& h) : fd_(fd), size_(size), path_(path), h_(h) {}

  // Hashes [off, off + n); false when the file cannot be mapped (kMap only).
  bool hash(std::uint64_t off, std::uint64_t n, ReadPath how) {
    return how == ReadPath::kMap ? hash_mapped(off, n) : (hash_read(off, n), true);
  }

 private:
  void hash_read(std::uint64_t off, std::uint64_t n) {
    if (!buf_) buf_.reset(new char[kBuffer]);
    while (n > 0) {
      const long long got =
          native::read_at(fd_, buf_.get(), static_cast<std::size_t>(std::min<std::uint64_t>(n, kBuffer)), off);
      if (got < 0) throw InputError("read failed: " + native::last_error());
      if (got == 0) throw InputError("file was truncated while being hashed");
      h_.update(buf_.get(), static_cast<std::size_t>(got));
      off += static_cast<std::uint64_t>(got);
      n -= static_cast<std::uint64_t>(got);
    }
  }

  bool hash_mapped(std::uint64_t off, std::uint64_t n) {
    if (!map_) {
      const int fd = native::duplicate(fd_);
      if (fd < 0) return false;
      try {
        map_ = MappedFile::adopt(fd, path_);
      } catch (const InputError&) {
        return false;
      }
      advise_sequential_pages(map_->data(), static_cast<std::size_t>(size_));
    }
    const std::byte* p = map_->data() + off;
    if (!read_mapped_guarded([&] { h_.update(p, static_cast<std::size_t>(n)); }))
      throw InputError("file was truncated while being hashed");
    // Unmap what was hashed (the page cache keeps it): the resident set
    // stays a few MiB however big the model, instead of growing to its size.
    release_mapped_pages(p, static_cast<std::size_t>(n));
    return true;
  }

  int fd_;
  std::uint64_t size_;
  const std::filesystem::path& path_;
  Hasher& h_;
  std::shared_ptr<const MappedFile> map_;
  std::unique_ptr<char[]> buf_;
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Hashes the whole file; with kAuto on a big file, the first chunks
// alternate between the paths and the faster finishes the file.
void hash_chunks(ChunkHasher& chunks, std::uint64_t size, ReadPath how, std::uint64_t* bytes_hashed,
                 std::atomic<std::uint64_t>* progress) {
  const bool measure = how == ReadPath::kAuto && size >= kMeasureFrom;
  if (how == ReadPath::kAuto) how = g_measured.load(std::memory_order_relaxed);
  double best[2] = {1e30, 1e30};  // per chunk: read, map
  int sampled = 0;
  for (std::uint64_t off = 0, n = 0; off < size; off += n) {
    const bool sampling = measure && sampled < 2 * kSamples;
    n = std::min(sampling ? kSampleChunk : kChunk, size - off);
    ReadPath path = how;
    if (sampling) path = sampled % 2 == 0 ? ReadPath::kRead : ReadPath::kMap;
    const auto start = std::chrono::steady_clock::now();
    if (!chunks.hash(off, n, path)) {  // cannot map: read it all
      path = how = ReadPath::kRead;
      chunks.hash(off, n, path);
      sampled = 2 * kSamples;
    } else if (sampling && n == kSampleChunk) {
      double& b = best[path == ReadPath::kMap ? 1 : 0];
      b = std::min(b, seconds_since(start));
      if (++sampled == 2 * kSamples) {
        how = best[1] < best[0] ? ReadPath::kMap : ReadPath::kRead;
        g_measured.store(how, std::memory_order_relaxed);
      }
    }
    if (bytes_hashed) *bytes_hashed += n;
    if (progress) progress->fetch_add(n, std::memory_order_relaxed);
  }
}

}  // namespace

ReadPath measured_read_path() { return g_measured.load(std::memory_order_relaxed); }

Digest hash_file_via(const std::filesystem::path& path, ReadPath how, std::uint64_t* bytes_hashed,
                     std::atomic<std::uint64_t>* progress) {
  native::FileStatus st;
  const int fd = open_regular_file(path, &st);
  struct Closer {
    int fd;
    ~Closer() { native::close(fd); }
  } closer{fd};
  native::advise_sequential(fd);
  Hasher h;
  try {
    ChunkHasher chunks(fd, st.size, path, h);
    hash_chunks(chunks, st.size, how, bytes_hashed, progress);
  } catch (const InputError& e) {
    throw InputError(file_error(to_utf8(path), e.what()));
  }
  return h.finish();
}

Digest hash_file(const std::filesystem::path& path, std::uint64_t* bytes_hashed, std::atomic<std::uint64_t>* progress) {
  return hash_file_via(path, ReadPath::kAuto, bytes_hashed, progress);
}

}  // namespace winml::store

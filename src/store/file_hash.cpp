#include "store/file_hash.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>

#include "base/error.h"
#include "base/regular_file.h"

namespace winml::store {

namespace {

constexpr std::uint64_t kChunk = 4u << 20;         // progress granularity
constexpr std::uint64_t kSampleChunk = 1u << 20;   // measurement granularity: the slow path is sampled too
constexpr std::size_t kBuffer = 256u << 10;        // read() buffer: stays in L2 while hashed
constexpr std::uint64_t kMeasureFrom = 32u << 20;  // smaller files use the last choice
constexpr int kSamples = 2;                        // chunks per path while measuring

std::atomic<ReadPath> g_measured{ReadPath::kRead};

// A file truncated by another process while it is mapped raises SIGBUS on
// access. Hashing catches that (per thread) and reports the file as changed
// instead of crashing; other faults keep the default action.
thread_local sigjmp_buf* t_hash_jump = nullptr;

void on_sigbus(int sig) {
  if (t_hash_jump) siglongjmp(*t_hash_jump, 1);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_sigbus_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NODEFER;
    ::sigaction(SIGBUS, &sa, nullptr);
  });
}

// One open file hashed chunk by chunk, each chunk through either path.
class ChunkHasher {
 public:
  ChunkHasher(int fd, std::uint64_t size, Hasher& h) : fd_(fd), size_(size), h_(h) {}
  ~ChunkHasher() {
    if (map_) ::munmap(map_, size_);
  }

  // Hashes [off, off + n); false when the file cannot be mapped (kMap only).
  bool hash(std::uint64_t off, std::uint64_t n, ReadPath how) {
    return how == ReadPath::kMap ? hash_mapped(off, n) : (hash_read(off, n), true);
  }

 private:
  void hash_read(std::uint64_t off, std::uint64_t n) {
    if (!buf_) buf_.reset(new char[kBuffer]);
    while (n > 0) {
      const ssize_t got = ::pread(fd_, buf_.get(), static_cast<std::size_t>(std::min<std::uint64_t>(n, kBuffer)),
                                  static_cast<off_t>(off));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw InputError(std::string("read failed: ") + std::strerror(errno));
      if (got == 0) throw InputError("file was truncated while being hashed");
      h_.update(buf_.get(), static_cast<std::size_t>(got));
      off += static_cast<std::uint64_t>(got);
      n -= static_cast<std::uint64_t>(got);
    }
  }

  bool hash_mapped(std::uint64_t off, std::uint64_t n) {
    if (!map_) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
      if (p == MAP_FAILED) return false;
      ::madvise(p, size_, MADV_SEQUENTIAL);
      map_ = static_cast<char*>(p);
    }
    h_.update(map_ + off, static_cast<std::size_t>(n));
    // Unmap what was hashed (the page cache keeps it): the resident set
    // stays a few MiB however big the model, instead of growing to its size.
    ::madvise(map_ + off, static_cast<std::size_t>(n), MADV_DONTNEED);
    return true;
  }

  int fd_;
  std::uint64_t size_;
  Hasher& h_;
  char* map_ = nullptr;
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
  struct stat st {};
  const int fd = open_regular_file(path, &st);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  Hasher h;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  install_sigbus_handler();
  sigjmp_buf jump;
  try {
    ChunkHasher chunks(fd, size, h);
    if (sigsetjmp(jump, 1) == 0) {
      t_hash_jump = &jump;
      hash_chunks(chunks, size, how, bytes_hashed, progress);
      t_hash_jump = nullptr;
    } else {
      t_hash_jump = nullptr;
      throw InputError("file was truncated while being hashed");
    }
  } catch (const InputError& e) {
    t_hash_jump = nullptr;
    throw InputError(file_error(path.string(), e.what()));
  }
  return h.finish();
}

Digest hash_file(const std::filesystem::path& path, std::uint64_t* bytes_hashed, std::atomic<std::uint64_t>* progress) {
  return hash_file_via(path, ReadPath::kAuto, bytes_hashed, progress);
}

}  // namespace winml::store

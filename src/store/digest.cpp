#include "store/digest.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>

#include "base/error.h"
#include "base/regular_file.h"

// On x86-64, route XXH3 through libxxhash's run-time dispatch so the widest
// vector unit present (AVX2/AVX-512) is used: about twice the SSE2 baseline.
#if defined(__x86_64__) || defined(_M_X64)
#include <xxh_x86dispatch.h>
#endif

namespace winml::store {

std::string Digest::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return std::string(buf, 32);
}

std::optional<Digest> Digest::from_hex(std::string_view hex) {
  if (hex.size() != 32) return std::nullopt;
  static const auto table = [] {
    std::array<std::int8_t, 256> t{};
    t.fill(-1);
    for (int c = 0; c < 10; ++c) t['0' + c] = static_cast<std::int8_t>(c);
    for (int c = 0; c < 6; ++c) t['a' + c] = static_cast<std::int8_t>(10 + c);
    return t;
  }();
  auto parse = [](std::string_view s, std::uint64_t& out) {
    out = 0;
    for (char c : s) {
      int v = table[static_cast<unsigned char>(c)];
      if (v < 0) return false;
      out = (out << 4) | static_cast<std::uint64_t>(v);
    }
    return true;
  };
  Digest d;
  if (!parse(hex.substr(0, 16), d.high) || !parse(hex.substr(16), d.low)) return std::nullopt;
  return d;
}

Hasher::Hasher() : state_(XXH3_createState()) { XXH3_128bits_reset(state_); }
Hasher::~Hasher() { XXH3_freeState(state_); }

void Hasher::update(const void* data, std::size_t size) { XXH3_128bits_update(state_, data, size); }

void Hasher::update_field(std::string_view s) {
  std::uint64_t n = s.size();
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
  update(len, sizeof len);
  update(s);
}

void Hasher::update_digest(const Digest& d) {
  unsigned char b[16];
  for (int i = 0; i < 8; ++i) {
    b[i] = static_cast<unsigned char>(d.high >> (8 * i));
    b[8 + i] = static_cast<unsigned char>(d.low >> (8 * i));
  }
  update(b, sizeof b);
}

Digest Hasher::finish() const {
  XXH128_hash_t h = XXH3_128bits_digest(state_);
  return Digest{h.high64, h.low64};
}

Digest digest_of(std::string_view bytes) {
  XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return Digest{h.high64, h.low64};
}

namespace {

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

// Streams a mapping through the hasher: no copy into user space, about 1.5x
// the throughput of read() into a buffer on a page-cached file.
bool hash_mapped(int fd, std::uint64_t size, Hasher& h, std::uint64_t* bytes_hashed,
                 std::atomic<std::uint64_t>* progress) {
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return false;
  ::madvise(p, size, MADV_SEQUENTIAL);
  install_sigbus_handler();
  sigjmp_buf jump;
  volatile bool truncated = false;
  if (sigsetjmp(jump, 1) == 0) {
    t_hash_jump = &jump;
    constexpr std::uint64_t kChunk = 4u << 20;  // progress granularity
    for (std::uint64_t off = 0; off < size; off += kChunk) {
      std::uint64_t n = std::min(kChunk, size - off);
      h.update(static_cast<const char*>(p) + off, static_cast<std::size_t>(n));
      // Unmap what was hashed (the page cache keeps it): the resident set
      // stays a few MiB however big the model, instead of growing to its size.
      ::madvise(static_cast<char*>(p) + off, static_cast<std::size_t>(n), MADV_DONTNEED);
      if (bytes_hashed) *bytes_hashed += n;
      if (progress) progress->fetch_add(n, std::memory_order_relaxed);
    }
  } else {
    truncated = true;
  }
  t_hash_jump = nullptr;
  ::munmap(p, size);
  if (truncated) throw InputError("file was truncated while being hashed");
  return true;
}

}  // namespace

Digest hash_file(const std::filesystem::path& path, std::uint64_t* bytes_hashed,
                 std::atomic<std::uint64_t>* progress) {
  struct stat st {};
  const int fd = open_regular_file(path, &st);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  Hasher h;
  if (st.st_size >= (1 << 20)) {
    try {
      if (hash_mapped(fd, static_cast<std::uint64_t>(st.st_size), h, bytes_hashed, progress)) return h.finish();
    } catch (const InputError& e) {
      throw InputError(file_error(path.string(), e.what()));
    }
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  // Small files (and anything that cannot be mapped): 1 MiB reads, large
  // enough to amortise syscalls, small enough to stay in L2/L3.
  constexpr std::size_t kChunk = 1 << 20;
  std::unique_ptr<char[]> buf(new char[kChunk]);
  for (;;) {
    ssize_t n = ::read(fd, buf.get(), kChunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(file_error(path.string(), std::string("read failed: ") + std::strerror(errno)));
    if (n == 0) break;
    h.update(buf.get(), static_cast<std::size_t>(n));
    if (bytes_hashed) *bytes_hashed += static_cast<std::uint64_t>(n);
    if (progress) progress->fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
  }
  return h.finish();
}

}  // namespace winml::store

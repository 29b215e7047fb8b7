#include "base/native_file.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

namespace winml::native {

namespace {

FileKind kind_of(mode_t mode) {
  if (S_ISREG(mode)) return FileKind::kRegular;
  if (S_ISDIR(mode)) return FileKind::kDirectory;
  if (S_ISFIFO(mode)) return FileKind::kFifo;
  if (S_ISCHR(mode) || S_ISBLK(mode)) return FileKind::kDevice;
  if (S_ISSOCK(mode)) return FileKind::kSocket;
  if (S_ISLNK(mode)) return FileKind::kSymlink;
  return FileKind::kOther;
}

FileStatus from_stat(const struct ::stat& st) {
  FileStatus s;
  s.kind = kind_of(st.st_mode);
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  s.inode = static_cast<std::uint64_t>(st.st_ino);
  s.device = static_cast<std::uint64_t>(st.st_dev);
  return s;
}

}  // namespace

FileStatus status(const fs::path& path) { return status_utf8(path.native()); }

FileStatus status_utf8(const std::string& utf8_path) {
  struct ::stat st {};
  return ::stat(utf8_path.c_str(), &st) == 0 ? from_stat(st) : FileStatus{};
}

FileStatus status(int fd) {
  struct ::stat st {};
  return ::fstat(fd, &st) == 0 ? from_stat(st) : FileStatus{};
}

FileStatus link_status(const fs::path& path) {
  struct ::stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? from_stat(st) : FileStatus{};
}

Directory::~Directory() {
  if (handle_ >= 0) ::close(static_cast<int>(handle_));
}

bool Directory::open(const std::string& dir) {
  if (handle_ >= 0) ::close(static_cast<int>(handle_));
  path_ = dir;
  handle_ = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  return handle_ >= 0;
}

FileStatus Directory::status_of(std::string_view relative) const {
  if (handle_ < 0) return status_utf8(path_ + "/" + std::string(relative));
  // NUL-terminated without a heap string: the stat cache's threads look up
  // thousands of names here, and an allocation on a new thread costs it an arena.
  char name[1024];
  std::string long_name;
  const char* c_name = name;
  if (relative.size() < sizeof name) {
    std::memcpy(name, relative.data(), relative.size());
    name[relative.size()] = '\0';
  } else {
    long_name = relative;
    c_name = long_name.c_str();
  }
  struct ::stat st {};
  return ::fstatat(static_cast<int>(handle_), c_name, &st, 0) == 0 ? from_stat(st) : FileStatus{};
}

int open_read(const fs::path& path) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

int create(const fs::path& path, Create how) {
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (how == Create::kNew ? O_EXCL : O_TRUNC);
  return ::open(path.c_str(), flags, 0644);
}

int open_write(const fs::path& path) { return ::open(path.c_str(), O_WRONLY | O_CLOEXEC); }

int open_read_write(const fs::path& path) { return ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644); }

int create_unnamed(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // A file system without O_TMPFILE: a named file, unlinked at once.
  static std::atomic<unsigned> counter{0};
  const fs::path name = dir / (".winml-unnamed." + std::to_string(::getpid()) + "." + std::to_string(counter++));
  fd = ::open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

int duplicate(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 0); }

void close(int fd) {
  if (fd >= 0) ::close(fd);
}

long long read(int fd, void* buffer, std::size_t size) {
  for (;;) {
    const ssize_t n = ::read(fd, buffer, size);
    if (n < 0 && errno == EINTR) continue;
    return n;
  }
}

long long read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset) {
  for (;;) {
    const ssize_t n = ::pread(fd, buffer, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    return n;
  }
}

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool write_all_at(int fd, const void* data, std::size_t size, std::uint64_t offset) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

bool sync(int fd) { return ::fsync(fd) == 0; }

bool truncate(int fd, std::uint64_t size) { return ::ftruncate(fd, static_cast<off_t>(size)) == 0; }

bool seek_to_end(int fd) { return ::lseek(fd, 0, SEEK_END) >= 0; }

void advise_sequential(int fd) { ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL); }

Locked try_lock(int fd, Lock how) {
  for (;;) {
    if (::flock(fd, (how == Lock::kShared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0) return Locked::kYes;
    if (errno == EINTR) continue;
    return errno == EWOULDBLOCK ? Locked::kBusy : Locked::kFailed;
  }
}

namespace {

// Copies a range with no hole inside the kernel (copy_file_range), else
// through a buffer.
bool copy_range(int from, loff_t in_off, std::uint64_t length, int to, std::uint64_t* to_size) {
  while (length > 0) {
    const ssize_t n = ::copy_file_range(from, &in_off, to, nullptr, length, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // Not supported across these file systems (or EOF): fall back to pread.
      std::vector<char> buf(std::min<std::uint64_t>(length, 1 << 20));
      while (length > 0) {
        const long long r = read_at(from, buf.data(), std::min<std::uint64_t>(buf.size(), length),
                                    static_cast<std::uint64_t>(in_off));
        if (r <= 0) {
          if (r == 0) errno = EIO;  // shorter than promised
          return false;
        }
        if (!write_all(to, buf.data(), static_cast<std::size_t>(r))) return false;
        in_off += r;
        length -= static_cast<std::uint64_t>(r);
        *to_size += static_cast<std::uint64_t>(r);
      }
      return true;
    }
    length -= static_cast<std::uint64_t>(n);
    *to_size += static_cast<std::uint64_t>(n);
  }
  return true;
}

}  // namespace

bool copy_data(int from, std::uint64_t offset, std::uint64_t length, int to, std::uint64_t* to_size) {
  loff_t in_off = static_cast<loff_t>(offset);
  const loff_t end = in_off + static_cast<loff_t>(length);
  while (in_off < end) {
    // Holes in a sparse source stay holes: seek over them instead of writing zeros.
    loff_t data = ::lseek(from, in_off, SEEK_DATA);
    if (data < 0 && errno == ENXIO) data = end;  // only a hole remains
    if (data > in_off) {
      const loff_t skip = std::min(data, end) - in_off;
      if (::lseek(to, skip, SEEK_CUR) < 0) return false;
      in_off += skip;
      *to_size += static_cast<std::uint64_t>(skip);
      if (::ftruncate(to, static_cast<off_t>(*to_size)) != 0) return false;
      continue;
    }
    const loff_t hole = ::lseek(from, in_off, SEEK_HOLE);
    const loff_t chunk_end = hole > in_off ? std::min(hole, end) : end;
    if (!copy_range(from, in_off, static_cast<std::uint64_t>(chunk_end - in_off), to, to_size)) return false;
    in_off = chunk_end;
  }
  return true;
}

bool clone_file(int from, int to) { return ::ioctl(to, FICLONE, from) == 0; }

Rename rename_replace(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) == 0) return Rename::kDone;
  return errno == EXDEV ? Rename::kCrossDevice : Rename::kFailed;
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: durability of the name, not correctness
  ::fsync(fd);
  ::close(fd);
}

bool hard_link(const fs::path& from, const fs::path& to) { return ::link(from.c_str(), to.c_str()) == 0; }

void touch(const fs::path& path) { ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0); }

void make_read_only(const fs::path& path) { ::chmod(path.c_str(), 0444); }

bool remove_file(const fs::path& path) {
  struct ::stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return false;
  return ::unlink(path.c_str()) == 0;
}

void remove_tree(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
}

std::optional<std::uint64_t> free_bytes(const fs::path& path) {
  struct ::statvfs s {};
  if (::statvfs(path.c_str(), &s) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize;
}

std::int64_t wall_clock_ns() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool can_replace_mapped_files() { return true; }

std::string last_error() { return std::strerror(errno); }

}  // namespace winml::native

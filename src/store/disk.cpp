#include "store/disk.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/atomic_file.h"
#include "base/copy_file.h"
#include "base/error.h"
#include "base/mapped_file.h"
#include "base/regular_file.h"

namespace winml::store {

namespace {

FileStat from_stat(const struct ::stat& st) {
  FileStat s;
  s.exists = true;
  s.is_dir = S_ISDIR(st.st_mode);
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  s.inode = static_cast<std::uint64_t>(st.st_ino);
  s.device = static_cast<std::uint64_t>(st.st_dev);
  return s;
}

}  // namespace

FileStat RealDisk::stat(const std::string& path) const {
  struct ::stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return from_stat(st);
}

RealDisk::~RealDisk() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

FileStat RealDisk::stat_in(const std::string& base_dir, std::string_view relative) const {
  int fd = -1;
  {
    std::lock_guard lock(mu_);
    if (dir_ != base_dir || dir_fd_ < 0) {
      if (dir_fd_ >= 0) ::close(dir_fd_);
      dir_fd_ = ::open(base_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      dir_ = base_dir;
    }
    fd = dir_fd_;
  }
  if (fd < 0) return stat(base_dir + "/" + std::string(relative));
  // NUL-terminated without a heap string: StatCache's threads stat here
  // thousands of times, and an allocation on a new thread costs it an arena.
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
  if (::fstatat(fd, c_name, &st, 0) != 0) return {};
  return from_stat(st);
}

std::shared_ptr<const void> DiskInterface::view(const fs::path& path, std::string_view& view) const {
  auto text = std::make_shared<const std::string>(read(path));
  view = *text;
  return text;
}

FileStat DiskInterface::stat_in(const std::string& base_dir, std::string_view relative) const {
  return stat(base_dir + "/" + std::string(relative));
}

Digest RealDisk::hash(const fs::path& path, std::uint64_t* bytes_hashed, std::atomic<std::uint64_t>* progress) const {
  return hash_file(path, bytes_hashed, progress);
}

namespace {

// Reads an open file whole into a buffer that `grow(capacity)` sizes and
// returns; one read for a file that did not change since its fstat: the
// capacity is one byte over its size, so the read that finds the end needs
// no larger buffer. Returns the length read.
template <typename Grow>
std::size_t read_whole(int fd, std::size_t size, const fs::path& path, Grow grow) {
  std::size_t capacity = size + 1, got = 0;
  char* buf = grow(capacity);
  for (;;) {
    if (got == capacity) buf = grow(capacity = capacity * 2 + 4096);  // grew meanwhile
    ssize_t n = ::read(fd, buf + got, capacity - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      throw InputError(file_error(path.string(), std::string("read failed: ") + std::strerror(e)));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return got;
}

}  // namespace

std::string RealDisk::read(const fs::path& path) const {
  struct ::stat st {};
  const int fd = open_regular_file(path, &st);
  std::string out;
  out.resize(read_whole(fd, static_cast<std::size_t>(st.st_size), path, [&](std::size_t n) {
    out.resize(n);
    return out.data();
  }));
  return out;
}

std::shared_ptr<const void> RealDisk::view(const fs::path& path, std::string_view& view) const {
  // State files are read on every build, a no-op included: into a buffer
  // that is neither zeroed first nor copied after.
  struct ::stat st {};
  const int fd = open_regular_file(path, &st);
  if (static_cast<std::uint64_t>(st.st_size) >= kMapFromBytes) {  // files are replaced by rename, never rewritten in place
    auto mapped = MappedFile::adopt(fd, path);
    view = mapped->view();
    return mapped;
  }
  std::shared_ptr<char[]> buf;
  std::size_t held = 0;
  const std::size_t n = read_whole(fd, static_cast<std::size_t>(st.st_size), path, [&](std::size_t capacity) {
    auto bigger = std::make_shared_for_overwrite<char[]>(capacity);
    if (held) std::memcpy(bigger.get(), buf.get(), held);
    buf = std::move(bigger);
    held = capacity;
    return buf.get();
  });
  view = std::string_view(buf.get(), n);
  return buf;
}

void RealDisk::write_atomic(const fs::path& path, std::string_view contents) { write_file_atomic(path, contents); }

void RealDisk::rename(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) == 0) return;
  if (errno != EXDEV)
    throw BuildError(file_error(to.string(), std::string("cannot move into place: ") + std::strerror(errno)));
  copy_file_atomic(from, to);
  std::error_code ec;
  fs::remove(from, ec);
}

void RealDisk::sync_directory(const fs::path& dir) { fsync_directory(dir); }

void RealDisk::make_directories(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw BuildError(file_error(dir.string(), "cannot create the directory: " + ec.message()));
}

void RealDisk::remove(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

void RealDisk::remove_tree(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
}

namespace {
class FdAppendFile : public AppendFile {
 public:
  FdAppendFile(fs::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~FdAppendFile() override { ::close(fd_); }
  void append(std::string_view record) override {
    const char* p = record.data();
    std::size_t left = record.size();
    while (left > 0) {
      ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw BuildError(file_error(path_.string(), std::string("write failed: ") + std::strerror(errno)));
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }

 private:
  fs::path path_;
  int fd_;
};
}  // namespace

std::unique_ptr<AppendFile> RealDisk::open_append(const fs::path& path, std::uint64_t valid_size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw BuildError(file_error(path.string(), std::string("cannot open: ") + std::strerror(errno)));
  if (::ftruncate(fd, static_cast<off_t>(valid_size)) != 0 || ::lseek(fd, 0, SEEK_END) < 0) {
    int e = errno;
    ::close(fd);
    throw BuildError(file_error(path.string(), std::string("cannot append: ") + std::strerror(e)));
  }
  return std::make_unique<FdAppendFile>(path, fd);
}

std::vector<std::string> RealDisk::list_files(const fs::path& dir) const {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::follow_directory_symlink, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) out.push_back(it->path().lexically_relative(dir).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<DirEntry> RealDisk::list_dir(const fs::path& dir) const {
  std::vector<DirEntry> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    // The entry's own type (d_type, else lstat): a symlink is never followed.
    const fs::file_type type = it->symlink_status(ec).type();
    if (ec) continue;  // gone since it was listed
    const EntryKind kind = type == fs::file_type::regular     ? EntryKind::kFile
                           : type == fs::file_type::directory ? EntryKind::kDirectory
                                                              : EntryKind::kOther;
    out.push_back({it->path().filename().string(), kind});
  }
  std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

std::int64_t RealDisk::now_ns() const {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Blobs are read-only, and every file reaches its place by rename, so no
// winml-make write ever goes through a shared inode; an edit by hand is
// caught by the stat cache and by the digest check on restore.
void RealDisk::link_or_copy(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  const fs::path temp = to.parent_path() / ("." + to.filename().string() + std::string(kTempMarker) +
                                            std::to_string(::getpid()) + ".link");
  std::error_code ec;
  fs::remove(temp, ec);
  if (::link(from.c_str(), temp.c_str()) == 0) {
    if (::rename(temp.c_str(), to.c_str()) == 0) return;
    fs::remove(temp, ec);
  }
  copy_file_atomic(from, to);
}

bool RealDisk::is_plain_file(const fs::path& path) const {
  std::error_code ec;
  return fs::is_regular_file(fs::symlink_status(path, ec));
}

void RealDisk::touch(const fs::path& path) { ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0); }

void RealDisk::make_read_only(const fs::path& path) { ::chmod(path.c_str(), 0444); }

bool RealDisk::remove_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(path, ec))) return false;  // a folder is never removed here
  return fs::remove(path, ec);
}

fs::path RealDisk::resolve(const fs::path& path) const {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal() : r;
}

RealDisk& real_disk() {
  static RealDisk disk;
  return disk;
}

}  // namespace winml::store

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
  std::string rel(relative);
  struct ::stat st {};
  if (fd < 0) return stat(base_dir + "/" + rel);
  if (::fstatat(fd, rel.c_str(), &st, 0) != 0) return {};
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

std::string RealDisk::read(const fs::path& path) const {
  // One fstat and one read: state files are read on every build.
  struct ::stat st {};
  const int fd = open_regular_file(path, &st);
  std::string out(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == out.size()) out.resize(out.size() * 2 + 4096);  // grew meanwhile
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
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
  out.resize(got);
  return out;
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

std::int64_t RealDisk::now_ns() const {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

RealDisk& real_disk() {
  static RealDisk disk;
  return disk;
}

}  // namespace winml::store

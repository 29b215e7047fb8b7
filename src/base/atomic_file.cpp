#include "base/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/error.h"
#include "base/regular_file.h"

namespace winml {
namespace {

std::string errno_text() { return std::strerror(errno); }

fs::path make_temp_name(const fs::path& dest) {
  static std::atomic<unsigned> counter{0};
  std::string name = "." + dest.filename().string() + std::string(kTempMarker) + std::to_string(::getpid()) + "." +
                     std::to_string(counter++);
  return dest.parent_path() / name;
}

}  // namespace

bool is_temp_name(const fs::path& p) { return p.filename().string().find(kTempMarker) != std::string::npos; }

bool is_abandoned_temp(const fs::path& p) {
  const std::string name = p.filename().string();
  const auto at = name.find(kTempMarker);
  if (at == std::string::npos) return false;
  const std::string rest = name.substr(at + kTempMarker.size());
  const pid_t pid = static_cast<pid_t>(std::atol(rest.c_str()));
  if (pid <= 0 || rest.find_first_not_of("0123456789") == 0) return false;
  return pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
}

bool is_stream_destination(const fs::path& p) {
  struct ::stat st {};
  return ::stat(p.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

AtomicFileWriter::AtomicFileWriter(fs::path destination) : dest_(std::move(destination)) {
  // A device or a pipe (`-o /dev/null`) is written into, as cp does: renaming
  // a file over it would replace the device node itself.
  if (is_stream_destination(dest_)) {
    fd_ = ::open(dest_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw BuildError(file_error(dest_.string(), "cannot open: " + errno_text()));
    into_device_ = true;
    return;
  }
  fs::path dir = dest_.parent_path();
  if (!dir.empty()) fs::create_directories(dir);
  temp_ = make_temp_name(dest_);
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw BuildError(file_error(temp_.string(), "cannot create: " + errno_text()));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !into_device_) {
    std::error_code ec;
    fs::remove(temp_, ec);
  }
}

void AtomicFileWriter::write(const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw BuildError(file_error(dest_.string(), "write failed: " + errno_text()));
    }
    p += n;
    size -= static_cast<std::size_t>(n);
    size_ += static_cast<std::uint64_t>(n);
  }
}

void AtomicFileWriter::pad_to(std::uint64_t offset) {
  static const char zeros[4096] = {};
  while (size_ < offset) {
    std::uint64_t n = std::min<std::uint64_t>(sizeof zeros, offset - size_);
    write(zeros, n);
  }
}

void AtomicFileWriter::copy_from_fd(int src_fd, std::uint64_t src_offset, std::uint64_t length) {
  loff_t in_off = static_cast<loff_t>(src_offset);
  const loff_t end = in_off + static_cast<loff_t>(length);
  while (in_off < end) {
    // Holes in a sparse source stay holes: seek over them instead of writing zeros.
    loff_t data = ::lseek(src_fd, in_off, SEEK_DATA);
    if (data < 0 && errno == ENXIO) data = end;  // only a hole remains
    if (data > in_off) {
      loff_t skip = std::min(data, end) - in_off;
      if (::lseek(fd_, skip, SEEK_CUR) < 0)
        throw BuildError(file_error(dest_.string(), "seek failed: " + errno_text()));
      in_off += skip;
      size_ += static_cast<std::uint64_t>(skip);
      if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0)
        throw BuildError(file_error(dest_.string(), "cannot extend: " + errno_text()));
      continue;
    }
    loff_t hole = ::lseek(src_fd, in_off, SEEK_HOLE);
    loff_t chunk_end = hole > in_off ? std::min(hole, end) : end;
    copy_range(src_fd, in_off, static_cast<std::uint64_t>(chunk_end - in_off));
    in_off = chunk_end;
  }
}

void AtomicFileWriter::copy_range(int src_fd, std::int64_t offset, std::uint64_t length) {
  loff_t in_off = offset;
  while (length > 0) {
    ssize_t n = ::copy_file_range(src_fd, &in_off, fd_, nullptr, length, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // Not supported across these file systems (or EOF): fall back to pread.
      std::vector<char> buf(std::min<std::uint64_t>(length, 1 << 20));
      while (length > 0) {
        ssize_t r = ::pread(src_fd, buf.data(), std::min<std::uint64_t>(buf.size(), length), in_off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) throw BuildError(file_error(dest_.string(), "short read while copying data"));
        write(buf.data(), static_cast<std::size_t>(r));
        in_off += r;
        length -= static_cast<std::uint64_t>(r);
      }
      return;
    }
    length -= static_cast<std::uint64_t>(n);
    size_ += static_cast<std::uint64_t>(n);
  }
}

void AtomicFileWriter::commit() {
  if (into_device_) {
    ::close(fd_);
    fd_ = -1;
    committed_ = true;
    return;
  }
  if (::fsync(fd_) != 0) throw BuildError(file_error(dest_.string(), "fsync failed: " + errno_text()));
  ::close(fd_);
  fd_ = -1;
  rename_durable(temp_, dest_);
  committed_ = true;
}

void rename_durable(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    throw BuildError(file_error(to.string(), "cannot rename into place: " + errno_text()));
  fsync_directory(to.parent_path().empty() ? fs::path(".") : to.parent_path());
}

void fsync_directory(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: durability of the name, not correctness
  ::fsync(fd);
  ::close(fd);
}

void write_file_atomic(const fs::path& path, std::string_view contents) {
  AtomicFileWriter w(path);
  w.write(contents);
  w.commit();
}

std::string read_file(const fs::path& path) {
  struct stat st {};
  const int fd = open_regular_file(path, &st);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw InputError(file_error(path.string(), std::string("read failed: ") + std::strerror(errno)));
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace winml

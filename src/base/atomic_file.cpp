#include "base/atomic_file.h"

#include <atomic>
#include <cstdlib>
#include <vector>

#include "base/error.h"
#include "base/native_file.h"
#include "base/regular_file.h"
#include "base/this_process.h"
#include "base/path_text.h"

namespace winml {
namespace {

fs::path make_temp_name(const fs::path& dest) {
  static std::atomic<unsigned> counter{0};
  std::string name = "." + to_utf8(dest.filename()) + std::string(kTempMarker) + std::to_string(current_process_id()) + "." +
                     std::to_string(counter++);
  return dest.parent_path() / name;
}

}  // namespace

bool is_temp_name(const fs::path& p) { return to_utf8(p.filename()).find(kTempMarker) != std::string::npos; }

bool is_abandoned_temp(const fs::path& p) {
  const std::string name = to_utf8(p.filename());
  const auto at = name.find(kTempMarker);
  if (at == std::string::npos) return false;
  const std::string rest = name.substr(at + kTempMarker.size());
  const int pid = std::atoi(rest.c_str());
  if (pid <= 0 || rest.find_first_not_of("0123456789") == 0) return false;
  return pid != current_process_id() && process_is_gone(pid);
}

bool is_stream_destination(const fs::path& p) { return native::is_stream(p); }

AtomicFileWriter::AtomicFileWriter(fs::path destination) : dest_(std::move(destination)) {
  // A device or a pipe (`-o /dev/null`) is written into, as cp does: renaming
  // a file over it would replace the device node itself.
  if (is_stream_destination(dest_)) {
    fd_ = native::open_write(dest_);
    if (fd_ < 0) throw BuildError(file_error(to_utf8(dest_), "cannot open: " + native::last_error()));
    into_device_ = true;
    return;
  }
  fs::path dir = dest_.parent_path();
  if (!dir.empty()) fs::create_directories(dir);
  temp_ = make_temp_name(dest_);
  fd_ = native::create(temp_, native::Create::kReplace);
  if (fd_ < 0) throw BuildError(file_error(to_utf8(temp_), "cannot create: " + native::last_error()));
}

AtomicFileWriter::~AtomicFileWriter() {
  native::close(fd_);
  if (!committed_ && !into_device_) {
    std::error_code ec;
    fs::remove(temp_, ec);
  }
}

void AtomicFileWriter::write(const void* data, std::size_t size) {
  if (!native::write_all(fd_, data, size))
    throw BuildError(file_error(to_utf8(dest_), "write failed: " + native::last_error()));
  size_ += size;
}

void AtomicFileWriter::pad_to(std::uint64_t offset) {
  static const char zeros[4096] = {};
  while (size_ < offset) {
    std::uint64_t n = std::min<std::uint64_t>(sizeof zeros, offset - size_);
    write(zeros, n);
  }
}

void AtomicFileWriter::copy_from_fd(int src_fd, std::uint64_t src_offset, std::uint64_t length) {
  if (!native::copy_data(src_fd, src_offset, length, fd_, &size_))
    throw BuildError(file_error(to_utf8(dest_), "cannot copy data: " + native::last_error()));
}

void AtomicFileWriter::commit() {
  if (into_device_) {
    native::close(fd_);
    fd_ = -1;
    committed_ = true;
    return;
  }
  if (!native::sync(fd_)) throw BuildError(file_error(to_utf8(dest_), "fsync failed: " + native::last_error()));
  native::close(fd_);
  fd_ = -1;
  rename_durable(temp_, dest_);
  committed_ = true;
}

void rename_durable(const fs::path& from, const fs::path& to) {
  if (native::rename_replace(from, to) != native::Rename::kDone)
    throw BuildError(file_error(to_utf8(to), "cannot rename into place: " + native::last_error()));
  fsync_directory(to.parent_path().empty() ? fs::path(".") : to.parent_path());
}

void fsync_directory(const fs::path& dir) { native::sync_directory(dir); }

void write_file_atomic(const fs::path& path, std::string_view contents) {
  AtomicFileWriter w(path);
  w.write(contents);
  w.commit();
}

std::string read_file(const fs::path& path) {
  const int fd = open_regular_file(path);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const long long n = native::read(fd, buf, sizeof buf);
    if (n < 0) {
      const std::string why = native::last_error();
      native::close(fd);
      throw InputError(file_error(to_utf8(path), "read failed: " + why));
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  native::close(fd);
  return out;
}

}  // namespace winml

#include "store/disk.h"

#include <algorithm>
#include <cstring>

#include "base/atomic_file.h"
#include "base/copy_file.h"
#include "base/error.h"
#include "base/mapped_file.h"
#include "base/native_file.h"
#include "base/regular_file.h"
#include "base/this_process.h"
#include "base/path_text.h"

namespace winml::store {

namespace {

FileStat from_native(const native::FileStatus& st) {
  FileStat s;
  if (!st.exists()) return s;
  s.exists = true;
  s.is_dir = st.kind == native::FileKind::kDirectory;
  s.size = st.size;
  s.mtime_ns = st.mtime_ns;
  s.ctime_ns = st.ctime_ns;
  s.inode = st.inode;
  s.device = st.device;
  return s;
}

}  // namespace

FileStat RealDisk::stat(const std::string& path) const { return from_native(native::status_utf8(path)); }

RealDisk::~RealDisk() = default;

FileStat RealDisk::stat_in(const std::string& base_dir, std::string_view relative) const {
  std::lock_guard lock(mu_);
  if (dir_.path() != base_dir || !dir_open_) dir_open_ = dir_.open(base_dir);
  return from_native(dir_.status_of(relative));
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
    const long long n = native::read(fd, buf + got, capacity - got);
    if (n < 0) {
      const std::string why = native::last_error();
      native::close(fd);
      throw InputError(file_error(to_utf8(path), "read failed: " + why));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  native::close(fd);
  return got;
}

}  // namespace

std::string RealDisk::read(const fs::path& path) const {
  native::FileStatus st;
  const int fd = open_regular_file(path, &st);
  std::string out;
  out.resize(read_whole(fd, static_cast<std::size_t>(st.size), path, [&](std::size_t n) {
    out.resize(n);
    return out.data();
  }));
  return out;
}

std::shared_ptr<const void> RealDisk::view(const fs::path& path, std::string_view& view) const {
  // State files are read on every build, a no-op included: into a buffer
  // that is neither zeroed first nor copied after.
  native::FileStatus st;
  const int fd = open_regular_file(path, &st);
  if (st.size >= kMapFromBytes && native::can_replace_mapped_files()) {  // files are replaced by rename, never rewritten in place
    auto mapped = MappedFile::adopt(fd, path);
    view = mapped->view();
    return mapped;
  }
  std::shared_ptr<char[]> buf;
  std::size_t held = 0;
  const std::size_t n = read_whole(fd, static_cast<std::size_t>(st.size), path, [&](std::size_t capacity) {
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
  const native::Rename r = native::rename_replace(from, to);
  if (r == native::Rename::kDone) return;
  if (r == native::Rename::kFailed)
    throw BuildError(file_error(to_utf8(to), "cannot move into place: " + native::last_error()));
  copy_file_atomic(from, to);
  std::error_code ec;
  fs::remove(from, ec);
}

void RealDisk::sync_directory(const fs::path& dir) { fsync_directory(dir); }

void RealDisk::make_directories(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw BuildError(file_error(to_utf8(dir), "cannot create the directory: " + ec.message()));
}

void RealDisk::remove(const fs::path& path) {
  // A read-only file (a cache blob) too; an empty folder as fs::remove does.
  if (!native::remove_file(path)) {
    std::error_code ec;
    fs::remove(path, ec);
  }
}

void RealDisk::remove_tree(const fs::path& dir) { native::remove_tree(dir); }

namespace {
class FdAppendFile : public AppendFile {
 public:
  FdAppendFile(fs::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~FdAppendFile() override { native::close(fd_); }
  void append(std::string_view record) override {
    if (!native::write_all(fd_, record.data(), record.size()))
      throw BuildError(file_error(to_utf8(path_), "write failed: " + native::last_error()));
  }

 private:
  fs::path path_;
  int fd_;
};
}  // namespace

std::unique_ptr<AppendFile> RealDisk::open_append(const fs::path& path, std::uint64_t valid_size) {
  const int fd = native::open_write(path);
  if (fd < 0) throw BuildError(file_error(to_utf8(path), "cannot open: " + native::last_error()));
  if (!native::truncate(fd, valid_size) || !native::seek_to_end(fd)) {
    const std::string why = native::last_error();
    native::close(fd);
    throw BuildError(file_error(to_utf8(path), "cannot append: " + why));
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
    out.push_back({to_utf8(it->path().filename()), kind});
  }
  std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

std::int64_t RealDisk::now_ns() const { return native::wall_clock_ns(); }

// Blobs are read-only, and every file reaches its place by rename, so no
// winml-make write ever goes through a shared inode; an edit by hand is
// caught by the stat cache and by the digest check on restore.
void RealDisk::link_or_copy(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  const fs::path temp = to.parent_path() / ("." + to_utf8(to.filename()) + std::string(kTempMarker) +
                                            std::to_string(current_process_id()) + ".link");
  native::remove_file(temp);
  if (native::hard_link(from, temp)) {
    if (native::rename_replace(temp, to) == native::Rename::kDone) return;
    native::remove_file(temp);
  }
  copy_file_atomic(from, to);
}

bool RealDisk::is_plain_file(const fs::path& path) const {
  std::error_code ec;
  return fs::is_regular_file(fs::symlink_status(path, ec));
}

void RealDisk::touch(const fs::path& path) { native::touch(path); }

void RealDisk::make_read_only(const fs::path& path) { native::make_read_only(path); }

// (A folder is never removed here.)
bool RealDisk::remove_file(const fs::path& path) { return native::remove_file(path); }

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

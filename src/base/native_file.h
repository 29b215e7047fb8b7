// The operating system's files, behind one interface: the only place
// winml-make calls the system for them (base/posix/native_file.cpp,
// base/windows/native_file.cpp; CMake compiles one of the two).
//
// A file is an `int` descriptor on both. On Windows it is a C runtime
// descriptor over a handle opened with every share mode (read, write and
// delete), so that a file one process reads can still be replaced or removed
// by another, as on POSIX; binary mode, never text.
//
// Functions report failure by their result and leave the reason in
// last_error() (errno's text on POSIX, the system message on Windows).
// Paths are std::filesystem::path; on Windows the wide form reaches the API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace winml::native {

namespace fs = std::filesystem;

enum class FileKind { kMissing, kRegular, kDirectory, kFifo, kDevice, kSocket, kSymlink, kOther };

// What the build's stat cache compares. On Windows: ChangeTime is ctime,
// the file index is the inode and the volume's serial number the device.
struct FileStatus {
  FileKind kind = FileKind::kMissing;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t inode = 0;
  std::uint64_t device = 0;
  bool exists() const { return kind != FileKind::kMissing; }
};

// Symlinks followed; kMissing when the path is absent or cannot be reached.
FileStatus status(const fs::path& path);
// The same for a path in UTF-8 text: the build's stat cache keeps paths as
// strings, and making a std::filesystem::path costs more than the stat.
FileStatus status_utf8(const std::string& utf8_path);
FileStatus status(int fd);
// The entry itself: a symlink is kSymlink.
FileStatus link_status(const fs::path& path);
// "a directory", "a FIFO", "a device", "a socket", "not a regular file".
std::string_view describe_kind(FileKind kind);

// A directory kept open, to look up many names inside it with a shorter
// path walk (POSIX: an O_PATH descriptor and fstatat).
class Directory {
 public:
  Directory() = default;
  ~Directory();
  Directory(const Directory&) = delete;
  Directory& operator=(const Directory&) = delete;
  // False when `dir` cannot be opened (status_of then falls back to paths).
  bool open(const std::string& dir);
  const std::string& path() const { return path_; }
  FileStatus status_of(std::string_view relative) const;

 private:
  std::string path_;
  std::intptr_t handle_ = -1;
};

// Read-only. Never blocks on a FIFO (the caller checks the kind first).
int open_read(const fs::path& path);
// A new file for writing, mode 0644: replaced when it exists (kReplace), or
// refused (kNew: exclusive creation).
enum class Create { kReplace, kNew };
int create(const fs::path& path, Create how);
// An existing file opened for writing, kept as it is (a device, a journal).
int open_write(const fs::path& path);
// Read and write, created when missing (a lock file).
int open_read_write(const fs::path& path);
// A file with no name in `dir`, for scratch data; it disappears when closed.
int create_unnamed(const fs::path& dir);
int duplicate(int fd);
void close(int fd);

// Bytes read (0 at the end), or -1. Interrupted calls are retried.
long long read(int fd, void* buffer, std::size_t size);
long long read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset);
// All of `data`, or false.
bool write_all(int fd, const void* data, std::size_t size);
bool write_all_at(int fd, const void* data, std::size_t size, std::uint64_t offset);
bool sync(int fd);
bool truncate(int fd, std::uint64_t size);
bool seek_to_end(int fd);
// Tells the system the file will be read once from start to end.
void advise_sequential(int fd);

// A lock on the whole file that the system releases when the descriptor is
// closed or its process dies, even killed (POSIX: flock; Windows: LockFileEx
// on a byte far past the end, so that the file's bytes stay readable).
enum class Lock { kShared, kExclusive };
enum class Locked { kYes, kBusy, kFailed };  // kBusy: another holder has it
Locked try_lock(int fd, Lock how);

// Appends `length` bytes of `from` at `offset` to `to`'s end (which is at
// `*to_size`, updated), inside the kernel where it can, keeping a sparse
// source's holes as holes. False on a read or write failure.
bool copy_data(int from, std::uint64_t offset, std::uint64_t length, int to, std::uint64_t* to_size);
// Makes `to` share `from`'s blocks copy-on-write (a reflink); false where
// the file system cannot.
bool clone_file(int from, int to);

enum class Rename { kDone, kCrossDevice, kFailed };
// Replaces `to` by `from` atomically. On Windows, a destination another
// process holds open is retried for a moment, then kFailed.
Rename rename_replace(const fs::path& from, const fs::path& to);
// Makes names created in `dir` durable (best effort).
void sync_directory(const fs::path& dir);
bool hard_link(const fs::path& from, const fs::path& to);
// Sets the file's modification time to now.
void touch(const fs::path& path);
// Read-only for everyone.
void make_read_only(const fs::path& path);
// A file or a symlink (read-only ones too), never a folder; false when
// nothing was removed.
bool remove_file(const fs::path& path);
// A folder and everything in it, read-only files included; a missing one is fine.
void remove_tree(const fs::path& dir);
// Bytes free to this user on the file system holding `path`; nullopt when unknown.
std::optional<std::uint64_t> free_bytes(const fs::path& path);
// The file system's wall clock (what modification times are in), ns since 1970.
std::int64_t wall_clock_ns();
// A device or a pipe: written into as a stream, never replaced.
bool is_stream(const fs::path& path);
// Whether a file can be replaced (renamed over) while this process has it
// mapped: yes on POSIX; never on Windows, so files that are replaced (the
// build state) are read there, not mapped.
bool can_replace_mapped_files();

std::string last_error();

}  // namespace winml::native

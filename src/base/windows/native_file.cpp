#include "base/native_file.h"

#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "base/windows/wide.h"

namespace winml::native {

namespace {

// The reason of the last failure on this thread: later calls (a close) may
// overwrite GetLastError before the caller asks.
thread_local DWORD t_error = 0;

template <typename T>
T fail(T result) {
  t_error = GetLastError();
  return result;
}

constexpr DWORD kShareAll = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

HANDLE handle_of(int fd) { return reinterpret_cast<HANDLE>(_get_osfhandle(fd)); }

std::int64_t filetime_value(const FILETIME& t) {
  return static_cast<std::int64_t>((static_cast<std::uint64_t>(t.dwHighDateTime) << 32) | t.dwLowDateTime);
}

FileStatus status_of_handle(HANDLE h) {
  FileStatus s;
  const DWORD type = GetFileType(h);
  if (type == FILE_TYPE_CHAR) {
    s.kind = FileKind::kDevice;
    return s;
  }
  if (type == FILE_TYPE_PIPE) {
    s.kind = FileKind::kFifo;
    return s;
  }
  BY_HANDLE_FILE_INFORMATION info{};
  if (!GetFileInformationByHandle(h, &info)) return fail(FileStatus{});
  s.kind = (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)   ? FileKind::kSymlink
           : (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? FileKind::kDirectory
                                                                : FileKind::kRegular;
  s.size = (static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  s.mtime_ns = windows::unix_ns(filetime_value(info.ftLastWriteTime));
  s.inode = (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  s.device = info.dwVolumeSerialNumber;
  // The change time (NTFS's ctime: metadata changed, a rename, a new link).
  FILE_BASIC_INFO basic{};
  s.ctime_ns = GetFileInformationByHandleEx(h, FileBasicInfo, &basic, sizeof basic)
                   ? windows::unix_ns(basic.ChangeTime.QuadPart)
                   : s.mtime_ns;
  return s;
}

FileStatus status_of_path(const fs::path& path, DWORD flags) {
  // No access rights asked: attributes only, so that a file another process
  // holds open (or a folder) can be looked at.
  HANDLE h = CreateFileW(windows::api_path(path).c_str(), FILE_READ_ATTRIBUTES, kShareAll, nullptr, OPEN_EXISTING,
                         FILE_FLAG_BACKUP_SEMANTICS | flags, nullptr);
  if (h == INVALID_HANDLE_VALUE && GetLastError() == ERROR_PIPE_BUSY) {
    // A named pipe whose every instance has a client is still a pipe.
    FileStatus s;
    s.kind = FileKind::kFifo;
    return s;
  }
  if (h == INVALID_HANDLE_VALUE) return fail(FileStatus{});
  FileStatus s = status_of_handle(h);
  CloseHandle(h);
  return s;
}

int adopt(HANDLE h, int flags) {
  if (h == INVALID_HANDLE_VALUE) return fail(-1);
  const int fd = _open_osfhandle(reinterpret_cast<intptr_t>(h), flags | _O_BINARY);
  if (fd < 0) {
    t_error = ERROR_TOO_MANY_OPEN_FILES;
    CloseHandle(h);
    return -1;
  }
  _setmode(fd, _O_BINARY);
  return fd;
}

int open_with(const fs::path& path, DWORD access, DWORD disposition, DWORD attributes, int flags) {
  const std::wstring p = windows::api_path(path);
  HANDLE h = CreateFileW(p.c_str(), access, kShareAll, nullptr, disposition, attributes, nullptr);
  // A named pipe's instances all have a client (one that only looked at it,
  // as status() does, is served a moment longer): wait for the server's next
  // one, as a pipe's client must.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (h == INVALID_HANDLE_VALUE && GetLastError() == ERROR_PIPE_BUSY &&
         std::chrono::steady_clock::now() < deadline) {
    WaitNamedPipeW(p.c_str(), 1000);
    h = CreateFileW(p.c_str(), access, kShareAll, nullptr, disposition, attributes, nullptr);
  }
  return adopt(h, flags);
}

OVERLAPPED at_offset(std::uint64_t offset) {
  OVERLAPPED o{};
  o.Offset = static_cast<DWORD>(offset);
  o.OffsetHigh = static_cast<DWORD>(offset >> 32);
  return o;
}

constexpr DWORD kMaxIo = 1u << 30;

void clear_read_only(const std::wstring& p) {
  const DWORD a = GetFileAttributesW(p.c_str());
  if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_READONLY))
    SetFileAttributesW(p.c_str(), a & ~FILE_ATTRIBUTE_READONLY);
}

}  // namespace

FileStatus status(const fs::path& path) { return status_of_path(path, 0); }

FileStatus status_utf8(const std::string& utf8_path) {
  return status_of_path(fs::path(std::u8string_view(reinterpret_cast<const char8_t*>(utf8_path.data()), utf8_path.size())), 0);
}

FileStatus status(int fd) { return status_of_handle(handle_of(fd)); }

FileStatus link_status(const fs::path& path) { return status_of_path(path, FILE_FLAG_OPEN_REPARSE_POINT); }

Directory::~Directory() = default;

bool Directory::open(const std::string& dir) {
  path_ = dir;
  return true;
}

FileStatus Directory::status_of(std::string_view relative) const {
  return status_utf8(path_ + "/" + std::string(relative));
}

int open_read(const fs::path& path) {
  // Backup semantics: a folder opens too, so that the caller can say it is one.
  return open_with(path, GENERIC_READ, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, _O_RDONLY);
}

int create(const fs::path& path, Create how) {
  return open_with(path, GENERIC_WRITE, how == Create::kNew ? CREATE_NEW : CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, 0);
}

int open_write(const fs::path& path) { return open_with(path, GENERIC_WRITE, OPEN_EXISTING, 0, 0); }

int open_read_write(const fs::path& path) {
  return open_with(path, GENERIC_READ | GENERIC_WRITE, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, 0);
}

int create_unnamed(const fs::path& dir) {
  static std::atomic<unsigned> counter{0};
  const fs::path name =
      dir / (".winml-unnamed." + std::to_string(GetCurrentProcessId()) + "." + std::to_string(counter++));
  return open_with(name, GENERIC_READ | GENERIC_WRITE, CREATE_NEW,
                   FILE_ATTRIBUTE_TEMPORARY | FILE_ATTRIBUTE_HIDDEN | FILE_FLAG_DELETE_ON_CLOSE, 0);
}

int duplicate(int fd) {
  const int d = _dup(fd);
  if (d < 0) t_error = ERROR_TOO_MANY_OPEN_FILES;
  return d;
}

void close(int fd) {
  if (fd >= 0) _close(fd);
}

long long read(int fd, void* buffer, std::size_t size) {
  DWORD got = 0;
  if (ReadFile(handle_of(fd), buffer, static_cast<DWORD>(std::min<std::size_t>(size, kMaxIo)), &got, nullptr))
    return got;
  const DWORD e = GetLastError();
  if (e == ERROR_BROKEN_PIPE || e == ERROR_HANDLE_EOF) return 0;  // the writer closed its end
  return fail(-1);
}

long long read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset) {
  // (On a synchronous handle this also moves the file pointer; descriptors
  // read at offsets are never read sequentially too.)
  OVERLAPPED o = at_offset(offset);
  DWORD got = 0;
  if (ReadFile(handle_of(fd), buffer, static_cast<DWORD>(std::min<std::size_t>(size, kMaxIo)), &got, &o)) return got;
  if (GetLastError() == ERROR_HANDLE_EOF) return 0;
  return fail(-1);
}

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    DWORD n = 0;
    if (!WriteFile(handle_of(fd), p, static_cast<DWORD>(std::min<std::size_t>(size, kMaxIo)), &n, nullptr) || n == 0)
      return fail(false);
    p += n;
    size -= n;
  }
  return true;
}

bool write_all_at(int fd, const void* data, std::size_t size, std::uint64_t offset) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    OVERLAPPED o = at_offset(offset);
    DWORD n = 0;
    if (!WriteFile(handle_of(fd), p, static_cast<DWORD>(std::min<std::size_t>(size, kMaxIo)), &n, &o) || n == 0)
      return fail(false);
    p += n;
    size -= n;
    offset += n;
  }
  return true;
}

bool sync(int fd) { return FlushFileBuffers(handle_of(fd)) ? true : fail(false); }

bool truncate(int fd, std::uint64_t size) {
  FILE_END_OF_FILE_INFO info{};
  info.EndOfFile.QuadPart = static_cast<LONGLONG>(size);
  return SetFileInformationByHandle(handle_of(fd), FileEndOfFileInfo, &info, sizeof info) ? true : fail(false);
}

bool seek_to_end(int fd) {
  return SetFilePointerEx(handle_of(fd), LARGE_INTEGER{}, nullptr, FILE_END) ? true : fail(false);
}

void advise_sequential(int) {}

Locked try_lock(int fd, Lock how) {
  // Windows' locks are mandatory: a locked range cannot be read by others.
  // The byte locked is far past anything written, so the holder's line stays
  // readable to whoever waits.
  OVERLAPPED o = at_offset(0x7FFFFFFF00000000ull);
  const DWORD flags = LOCKFILE_FAIL_IMMEDIATELY | (how == Lock::kExclusive ? LOCKFILE_EXCLUSIVE_LOCK : 0);
  if (LockFileEx(handle_of(fd), flags, 0, 1, 0, &o)) return Locked::kYes;
  return GetLastError() == ERROR_LOCK_VIOLATION ? fail(Locked::kBusy) : fail(Locked::kFailed);
}

bool copy_data(int from, std::uint64_t offset, std::uint64_t length, int to, std::uint64_t* to_size) {
  std::vector<char> buf(std::min<std::uint64_t>(length, 1 << 20));
  while (length > 0) {
    const long long r = read_at(from, buf.data(), std::min<std::uint64_t>(buf.size(), length), offset);
    if (r <= 0) {
      if (r == 0) t_error = ERROR_HANDLE_EOF;  // shorter than promised
      return false;
    }
    if (!write_all(to, buf.data(), static_cast<std::size_t>(r))) return false;
    offset += static_cast<std::uint64_t>(r);
    length -= static_cast<std::uint64_t>(r);
    *to_size += static_cast<std::uint64_t>(r);
  }
  return true;
}

bool clone_file(int, int) { return false; }

Rename rename_replace(const fs::path& from, const fs::path& to) {
  const std::wstring source = windows::api_path(from), target = windows::api_path(to);
  // A destination another process has open (an indexer, a virus scanner, a
  // reader of the old model) refuses the move for a moment: try again for
  // up to two seconds. A read-only destination (a link to a cache blob) is
  // replaced as on POSIX.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (int attempt = 0;; ++attempt) {
    if (MoveFileExW(source.c_str(), target.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
      return Rename::kDone;
    const DWORD e = GetLastError();
    if (e == ERROR_NOT_SAME_DEVICE) return fail(Rename::kCrossDevice);
    if (e != ERROR_ACCESS_DENIED && e != ERROR_SHARING_VIOLATION && e != ERROR_LOCK_VIOLATION)
      return fail(Rename::kFailed);
    if (attempt == 0) clear_read_only(target);
    if (std::chrono::steady_clock::now() > deadline) return fail(Rename::kFailed);
    std::this_thread::sleep_for(std::chrono::milliseconds(attempt < 10 ? 5 : 50));
  }
}

void sync_directory(const fs::path&) {
  // NTFS journals names: MOVEFILE_WRITE_THROUGH made the rename durable.
}

bool hard_link(const fs::path& from, const fs::path& to) {
  return CreateHardLinkW(windows::api_path(to).c_str(), windows::api_path(from).c_str(), nullptr) ? true
                                                                                                  : fail(false);
}

void touch(const fs::path& path) {
  HANDLE h = CreateFileW(windows::api_path(path).c_str(), FILE_WRITE_ATTRIBUTES, kShareAll, nullptr, OPEN_EXISTING,
                         FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (h == INVALID_HANDLE_VALUE) return;
  FILETIME now{};
  GetSystemTimeAsFileTime(&now);
  SetFileTime(h, nullptr, nullptr, &now);
  CloseHandle(h);
}

void make_read_only(const fs::path& path) {
  const std::wstring p = windows::api_path(path);
  const DWORD a = GetFileAttributesW(p.c_str());
  if (a != INVALID_FILE_ATTRIBUTES) SetFileAttributesW(p.c_str(), a | FILE_ATTRIBUTE_READONLY);
}

bool remove_file(const fs::path& path) {
  const std::wstring p = windows::api_path(path);
  const DWORD a = GetFileAttributesW(p.c_str());
  if (a == INVALID_FILE_ATTRIBUTES) return fail(false);
  if ((a & FILE_ATTRIBUTE_DIRECTORY) && !(a & FILE_ATTRIBUTE_REPARSE_POINT)) return false;
  if (a & FILE_ATTRIBUTE_READONLY) SetFileAttributesW(p.c_str(), a & ~FILE_ATTRIBUTE_READONLY);
  if (a & FILE_ATTRIBUTE_DIRECTORY) return RemoveDirectoryW(p.c_str()) ? true : fail(false);  // a directory link
  return DeleteFileW(p.c_str()) ? true : fail(false);
}

void remove_tree(const fs::path& dir) {
  // Read-only files (cache blobs) cannot be removed until their attribute is cleared.
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec))) {
    remove_file(dir);
    return;
  }
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::file_type type = it->symlink_status(ec).type();
    if (type == fs::file_type::directory) remove_tree(it->path());
    else remove_file(it->path());
  }
  RemoveDirectoryW(windows::api_path(dir).c_str());
}

std::optional<std::uint64_t> free_bytes(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  while (!p.empty() && !fs::exists(p, ec) && p.has_parent_path() && p.parent_path() != p) p = p.parent_path();
  ULARGE_INTEGER available{};
  if (!GetDiskFreeSpaceExW(windows::api_path(p).c_str(), &available, nullptr, nullptr)) return std::nullopt;
  return available.QuadPart;
}

std::int64_t wall_clock_ns() {
  FILETIME now{};
  GetSystemTimePreciseAsFileTime(&now);
  return windows::unix_ns(filetime_value(now));
}

bool can_replace_mapped_files() { return false; }

std::string last_error() { return windows::error_text(t_error); }

}  // namespace winml::native

#include "base/mapped_file.h"

#include <io.h>
#include <windows.h>

#include "base/error.h"
#include "base/regular_file.h"
#include "base/windows/wide.h"
#include "base/path_text.h"

namespace winml {

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
  return adopt(open_regular_file(path), path);
}

std::shared_ptr<const MappedFile> MappedFile::adopt(int fd, const std::filesystem::path& path) {
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->path_ = path;
  f->fd_ = fd;
  const native::FileStatus st = native::status(fd);
  if (!st.exists()) throw InputError(file_error(to_utf8(path), "cannot stat: " + native::last_error()));
  f->size_ = st.size;
  if (f->size_ > 0) {
    HANDLE file = reinterpret_cast<HANDLE>(_get_osfhandle(fd));
    // The section object lives as long as the view: closed at once.
    HANDLE section = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    void* p = section ? MapViewOfFile(section, FILE_MAP_READ, 0, 0, 0) : nullptr;
    const DWORD error = GetLastError();
    if (section) CloseHandle(section);
    if (!p) throw InputError(file_error(to_utf8(path), "cannot map: " + windows::error_text(error)));
    f->data_ = static_cast<const std::byte*>(p);
  }
  return f;
}

MappedFile::~MappedFile() {
  if (data_) UnmapViewOfFile(data_);
  native::close(fd_);
}

void release_mapped_pages(const std::byte* p, std::size_t n) {
  // Unlocking pages that are not locked takes them out of the working set:
  // read again from the file if touched.
  SYSTEM_INFO info{};
  GetSystemInfo(&info);
  const auto page = static_cast<std::uintptr_t>(info.dwPageSize);
  auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
  auto end = (reinterpret_cast<std::uintptr_t>(p) + n) / page * page;
  if (end > begin) VirtualUnlock(reinterpret_cast<void*>(begin), end - begin);
}

void advise_sequential_pages(const std::byte*, std::size_t) {}

bool read_mapped_guarded(const std::function<void()>& read) {
  // A mapped file cannot be cut short on Windows: nothing to guard against.
  read();
  return true;
}

}  // namespace winml

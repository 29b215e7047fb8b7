#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "base/regular_file.h"

namespace winml {

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
  struct stat st {};
  const int fd = open_regular_file(path, &st);
  return adopt(fd, path);
}

std::shared_ptr<const MappedFile> MappedFile::adopt(int fd, const std::filesystem::path& path) {
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->path_ = path;
  f->fd_ = fd;
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw InputError(file_error(path.string(), std::string("cannot stat: ") + std::strerror(errno)));
  f->size_ = static_cast<std::uint64_t>(st.st_size);
  if (f->size_ > 0) {
    void* p = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, f->fd_, 0);
    if (p == MAP_FAILED)
      throw InputError(file_error(path.string(), std::string("cannot map: ") + std::strerror(errno)));
    f->data_ = static_cast<const std::byte*>(p);
  }
  return f;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

void release_mapped_pages(const std::byte* p, std::size_t n) {
  auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
  auto end = (reinterpret_cast<std::uintptr_t>(p) + n) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace winml

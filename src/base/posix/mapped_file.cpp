#include "base/mapped_file.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "base/error.h"
#include "base/regular_file.h"

namespace winml {

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
  return adopt(open_regular_file(path), path);
}

std::shared_ptr<const MappedFile> MappedFile::adopt(int fd, const std::filesystem::path& path) {
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->path_ = path;
  f->fd_ = fd;
  const native::FileStatus st = native::status(fd);
  if (!st.exists()) throw InputError(file_error(path.string(), "cannot stat: " + native::last_error()));
  f->size_ = st.size;
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
  native::close(fd_);
}

void release_mapped_pages(const std::byte* p, std::size_t n) {
  auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
  auto end = (reinterpret_cast<std::uintptr_t>(p) + n) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

void advise_sequential_pages(const std::byte* p, std::size_t n) {
  auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  auto begin = reinterpret_cast<std::uintptr_t>(p) / page * page;
  ::madvise(reinterpret_cast<void*>(begin), n + (reinterpret_cast<std::uintptr_t>(p) - begin), MADV_SEQUENTIAL);
}

namespace {

// A file cut short by another process while it is mapped raises SIGBUS on
// access: caught per thread inside read_mapped_guarded; other faults keep
// the default action.
thread_local sigjmp_buf* t_mapping_jump = nullptr;

void on_sigbus(int sig) {
  if (t_mapping_jump) siglongjmp(*t_mapping_jump, 1);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

bool read_mapped_guarded(const std::function<void()>& read) {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NODEFER;
    ::sigaction(SIGBUS, &sa, nullptr);
  });
  sigjmp_buf jump;
  sigjmp_buf* const outer = t_mapping_jump;
  if (sigsetjmp(jump, 1) != 0) {
    t_mapping_jump = outer;
    return false;
  }
  t_mapping_jump = &jump;
  try {
    read();
  } catch (...) {
    t_mapping_jump = outer;
    throw;
  }
  t_mapping_jump = outer;
  return true;
}

}  // namespace winml

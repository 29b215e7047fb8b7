#include "base/regular_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error.h"

namespace winml {

int open_regular_file(const std::filesystem::path& path, struct stat* st) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(file_error(path.string(), std::string("cannot open: ") + std::strerror(errno)));
  struct stat local {};
  struct stat* s = st ? st : &local;
  if (::fstat(fd, s) != 0 || !S_ISREG(s->st_mode)) {
    ::close(fd);
    const char* what = S_ISDIR(s->st_mode)                          ? "a directory"
                       : S_ISFIFO(s->st_mode)                       ? "a FIFO"
                       : S_ISCHR(s->st_mode) || S_ISBLK(s->st_mode) ? "a device"
                       : S_ISSOCK(s->st_mode)                       ? "a socket"
                                                                    : "not a regular file";
    throw InputError(file_error(path.string(), std::string("is ") + what + ", not a regular file"));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace winml

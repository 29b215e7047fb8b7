#include "base/copy_file.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/regular_file.h"

namespace winml {

void copy_file_atomic(const std::filesystem::path& from, const std::filesystem::path& to) {
  struct stat st {};
  const int in = open_regular_file(from, &st);
  try {
    AtomicFileWriter out(to);
    if (::ioctl(out.fd(), FICLONE, in) != 0) out.copy_from_fd(in, 0, static_cast<std::uint64_t>(st.st_size));
    out.commit();
  } catch (...) {
    ::close(in);
    throw;
  }
  ::close(in);
}

}  // namespace winml

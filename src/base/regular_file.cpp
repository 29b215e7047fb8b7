#include "base/regular_file.h"

#include "base/error.h"
#include "base/path_text.h"

namespace winml {

int open_regular_file(const std::filesystem::path& path, native::FileStatus* st) {
  const int fd = native::open_read(path);
  if (fd < 0) throw InputError(file_error(to_utf8(path), "cannot open: " + native::last_error()));
  native::FileStatus local;
  native::FileStatus& s = st ? *st : local;
  s = native::status(fd);
  if (s.kind != native::FileKind::kRegular) {
    native::close(fd);
    throw InputError(file_error(to_utf8(path), "is " + std::string(native::describe_kind(s.kind)) +
                                                   ", not a regular file"));
  }
  return fd;
}

}  // namespace winml

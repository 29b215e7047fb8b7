// SHA-256 of bytes and files, on every system; the Sha256 class itself is
// posix/sha256.cpp's (libcrypto) or windows/sha256.cpp's (BCrypt).
#include "remote/sha256.h"

#include <vector>

#include "base/error.h"
#include "base/native_file.h"
#include "base/path_text.h"

namespace winml::remote {

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex();
}

std::string sha256_file(const std::filesystem::path& file) {
  const int fd = native::open_read(file);
  if (fd < 0) throw InputError("cannot read " + to_utf8(file));
  Sha256 h;
  std::vector<char> buf(1 << 20);
  for (;;) {
    const long long n = native::read(fd, buf.data(), buf.size());
    if (n < 0) {
      native::close(fd);
      throw InputError("cannot read " + to_utf8(file));
    }
    if (n == 0) break;
    h.update(buf.data(), static_cast<std::size_t>(n));
  }
  native::close(fd);
  return h.hex();
}

}  // namespace winml::remote

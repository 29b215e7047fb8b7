#include "support/fifo.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>

namespace winml::test {

struct Fifo::Reader {
  int fd = -1;
};

Fifo::Fifo(const std::filesystem::path& path) : path_(path), reader_(std::make_unique<Reader>()) {
  if (::mkfifo(path_.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + path_.string());
  // Non-blocking, so that opening needs no writer yet.
  reader_->fd = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (reader_->fd < 0) throw std::runtime_error("open " + path_.string());
}

Fifo::~Fifo() { ::close(reader_->fd); }

std::string Fifo::drain() {
  std::string out(1 << 16, '\0');
  const ssize_t n = ::read(reader_->fd, out.data(), out.size());
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

}  // namespace winml::test

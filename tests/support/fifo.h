// A FIFO with its reading end open, standing in for /dev/null or a pipe as a
// destination: what is written into it can be read back, and a test that
// fails harms no device of the machine.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace winml::test {

class Fifo {
 public:
  explicit Fifo(std::filesystem::path path) : path_(std::move(path)) {
    if (::mkfifo(path_.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + path_.string());
    // Non-blocking, so that opening needs no writer yet.
    reader_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (reader_ < 0) throw std::runtime_error("open " + path_.string());
  }
  ~Fifo() { ::close(reader_); }
  Fifo(const Fifo&) = delete;
  Fifo& operator=(const Fifo&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // What is waiting in the pipe (its buffer holds 64 KiB).
  std::string drain() {
    std::string out(1 << 16, '\0');
    const ssize_t n = ::read(reader_, out.data(), out.size());
    out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return out;
  }

 private:
  std::filesystem::path path_;
  int reader_ = -1;
};

}  // namespace winml::test

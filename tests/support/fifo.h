// A pipe a test writes into as a destination, standing in for /dev/null or a
// pipe: what is written can be read back, and a test that fails harms no
// device of the machine. POSIX: a FIFO in the file system, its reading end
// open; Windows: a named pipe (\\.\pipe\...) served by a thread of its own
// (tests/support/posix/fifo.cpp, tests/support/windows/fifo.cpp).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

namespace winml::test {

class Fifo {
 public:
  // POSIX makes the FIFO at `path`; Windows names a pipe after it.
  explicit Fifo(const std::filesystem::path& path);
  ~Fifo();
  Fifo(const Fifo&) = delete;
  Fifo& operator=(const Fifo&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // What has been written so far (POSIX: up to the pipe's 64 KiB buffer).
  std::string drain();

 private:
  struct Reader;
  std::filesystem::path path_;
  std::unique_ptr<Reader> reader_;
};

}  // namespace winml::test

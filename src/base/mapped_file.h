// Read-only memory map of a whole file (base/posix/, base/windows/). Weights are used in place from the
// page cache instead of being copied into protobuf messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>

namespace winml {

class MappedFile {
 public:
  // Throws InputError naming the file when it cannot be opened or mapped.
  static std::shared_ptr<const MappedFile> open(const std::filesystem::path& path);
  // Maps the file `fd` refers to, taking ownership of `fd`; `path` names it in messages.
  static std::shared_ptr<const MappedFile> adopt(int fd, const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::byte* data() const { return data_; }
  std::uint64_t size() const { return size_; }
  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), static_cast<std::size_t>(size_)}; }

 private:
  MappedFile() = default;
  std::filesystem::path path_;
  const std::byte* data_ = nullptr;
  std::uint64_t size_ = 0;
  int fd_ = -1;
};

// Drops the whole pages inside [p, p + n) of a read-only file mapping (they
// are read again from the file if touched).
void release_mapped_pages(const std::byte* p, std::size_t n);

// Tells the system [p, p + n) of a mapping will be read once, in order.
void advise_sequential_pages(const std::byte* p, std::size_t n);

// Runs `read`, which reads a mapping; false when the mapped file was cut
// short under it by another process (POSIX raises SIGBUS there; Windows
// never lets a mapped file shrink). Nothing `read` does after the fault
// runs: it must own nothing that needs releasing.
bool read_mapped_guarded(const std::function<void()>& read);

}  // namespace winml

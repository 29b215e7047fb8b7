// Crash-safe file writes: data goes to a temporary file in the destination's
// directory, is fsync'ed, then renamed over the destination. A reader sees the
// old file or the complete new one, never a prefix.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace winml {

namespace fs = std::filesystem;

// Marker embedded in every temporary name, so leftovers of a killed process
// can be recognised (and removed) by the next run.
inline constexpr std::string_view kTempMarker = ".winml-tmp.";

bool is_temp_name(const fs::path& p);
// A temporary whose writer (the pid in its name) is gone: left by a killed
// process, safe to remove. Names without a pid are never abandoned.
bool is_abandoned_temp(const fs::path& p);

// A device or a pipe (`-o /dev/null`): written into as one stream, never
// replaced, and nothing can be put beside it.
bool is_stream_destination(const fs::path& p);

class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(fs::path destination);
  ~AtomicFileWriter();  // discards the temporary file unless committed
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, std::size_t size);
  void write(std::string_view s) { write(s.data(), s.size()); }
  // Pads with zero bytes up to `offset` (must be >= current size).
  void pad_to(std::uint64_t offset);
  // Copies `length` bytes from `src_fd` at `src_offset` without passing them
  // through user space where the kernel allows; holes of a sparse source
  // stay holes (native::copy_data).
  void copy_from_fd(int src_fd, std::uint64_t src_offset, std::uint64_t length);
  std::uint64_t size() const { return size_; }
  int fd() const { return fd_; }
  const fs::path& temp_path() const { return temp_; }
  const fs::path& destination() const { return dest_; }

  // fsync + rename into place + fsync of the directory (a device or pipe
  // destination is written in place: nothing to rename).
  void commit();

 private:
  fs::path dest_;
  fs::path temp_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  bool committed_ = false;
  bool into_device_ = false;  // the destination is a device or a pipe: written in place
};

void write_file_atomic(const fs::path& path, std::string_view contents);

// Renames `from` to `to` and makes the rename durable.
void rename_durable(const fs::path& from, const fs::path& to);
void fsync_directory(const fs::path& dir);

std::string read_file(const fs::path& path);

}  // namespace winml

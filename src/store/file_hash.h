// How a file's bytes reach the hasher. Reading into a small buffer and
// mapping the file each win on some machines and lose badly on others (a
// page fault per 4 KiB is cheap on one, 4x the cost of a copy on another), so
// a big file is hashed with both on its first chunks and finished with the
// faster. The digest is the same whichever path: it is one XXH3 stream.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>

#include "store/digest.h"

namespace winml::store {

enum class ReadPath {
  kAuto,  // measure on big files, else the path the last measurement chose
  kRead,  // pread() into a buffer that stays in the L2 cache
  kMap,   // mmap(), hashed in place, unmapped as it goes
};

// hash_file() with the read path forced (tests and benchmarks).
Digest hash_file_via(const std::filesystem::path& path, ReadPath how, std::uint64_t* bytes_hashed = nullptr,
                     std::atomic<std::uint64_t>* progress = nullptr);

// The path the last measurement chose (kRead before any).
ReadPath measured_read_path();

}  // namespace winml::store

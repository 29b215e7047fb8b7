// Sizes computed from dimensions read from files (models, blobs, .npy): a
// negative dimension or a product beyond 64 bits gives nullopt instead of a
// wrapped or undefined value that a later check could mistake for a size.
#pragma once

#include <cstdint>
#include <optional>

namespace winml {

template <class Dims>
std::optional<std::uint64_t> checked_byte_size(const Dims& dims, std::uint64_t element_bytes) {
  std::uint64_t n = element_bytes;
  for (auto d : dims)
    if (d < 0 || __builtin_mul_overflow(n, static_cast<std::uint64_t>(d), &n)) return std::nullopt;
  return n;
}

// [offset, offset + bytes) lies within [0, limit), without overflowing.
inline bool range_fits(std::uint64_t offset, std::uint64_t bytes, std::uint64_t limit) {
  return offset <= limit && bytes <= limit - offset;
}

}  // namespace winml

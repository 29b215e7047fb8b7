// XXH3-128 content digests. Printed full width (32 hex digits): short ids
// collide (an 8-hex id has a 50% collision chance around 77k entries).
#pragma once

#include <xxhash.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace winml::store {

struct Digest {
  std::uint64_t high = 0;
  std::uint64_t low = 0;

  std::string hex() const;  // 32 lowercase hex digits, high word first
  static std::optional<Digest> from_hex(std::string_view hex);
  bool is_zero() const { return high == 0 && low == 0; }
  friend bool operator==(const Digest&, const Digest&) = default;
  friend auto operator<=>(const Digest&, const Digest&) = default;
};

// Streaming XXH3-128. Feed fields with update_field() when building keys, so
// that ("ab","c") and ("a","bc") never produce the same digest.
class Hasher {
 public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  void update(const void* data, std::size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // Length-prefixed: unambiguous concatenation of fields.
  void update_field(std::string_view s);
  void update_digest(const Digest& d);
  Digest finish() const;

 private:
  XXH3_state_t* state_;
};

Digest digest_of(std::string_view bytes);

// Hashes a file's content; `bytes_hashed` (if given) is incremented as data
// is read, and so is `progress`, which another thread may read for a
// progress display. Throws InputError if unreadable. How the bytes are read
// (buffered or mapped, chosen by measurement): file_hash.h.
Digest hash_file(const std::filesystem::path& path, std::uint64_t* bytes_hashed = nullptr,
                 std::atomic<std::uint64_t>* progress = nullptr);

}  // namespace winml::store

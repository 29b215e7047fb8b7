// SHA-256, the digest the HTTP cache protocol names blobs by (OpenSSL's
// libcrypto, posix/sha256.cpp; BCrypt on Windows, windows/sha256.cpp: both
// use the CPU's SHA extensions where present).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace winml::remote {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, std::size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::string hex();  // 64 lowercase hex digits; ends the computation

 private:
  void* ctx_;  // EVP_MD_CTX, or the BCrypt hash's state
};

std::string sha256_hex(std::string_view bytes);
// Throws InputError when the file cannot be read.
std::string sha256_file(const std::filesystem::path& file);

}  // namespace winml::remote

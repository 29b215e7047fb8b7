// The cryptography signed entries need (entry_signature.h), one definition
// per system: posix/signing_primitives.cpp (OpenSSL's libcrypto),
// windows/signing_primitives.cpp (BCrypt for HMAC; OpenSSL's DLL for
// Ed25519, which BCrypt lacks). Every library is loaded on first use.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace winml::remote::signing {

inline constexpr std::size_t kHmacSha256Bytes = 32;
inline constexpr std::size_t kEd25519SignatureBytes = 64;

// HMAC-SHA-256 of `data` under `secret`: 32 raw bytes. BuildError when the
// library fails.
std::string hmac_sha256(std::string_view secret, std::string_view data);

// Whether a == b, in a time that depends on their size only.
bool equal_in_constant_time(std::string_view a, std::string_view b);

// Overwrites `size` bytes so that a secret does not outlive its use in memory.
void wipe(void* data, std::size_t size);

// An Ed25519 key read from PEM text: a private key (PKCS#8, which signs and
// verifies) or a public key (SubjectPublicKeyInfo, which verifies).
class Ed25519Key {
 public:
  enum class Problem { kNone, kUnreadable, kNotEd25519 };
  // Nothing, with `problem` set, when the text is no such PEM key or a key of
  // another algorithm. Throws InputError naming `file` when this system has
  // no library that does Ed25519 (Windows without OpenSSL's DLL), and
  // BuildError when a library that should be there cannot be loaded.
  static std::unique_ptr<Ed25519Key> from_pem(std::string_view pem, bool private_key, const std::string& file,
                                              Problem* problem);
  ~Ed25519Key();
  Ed25519Key(const Ed25519Key&) = delete;
  Ed25519Key& operator=(const Ed25519Key&) = delete;

  // 64 bytes; BuildError when signing fails (a public key cannot sign).
  std::string sign(std::string_view message) const;
  bool verify(std::string_view message, std::string_view signature) const;

 private:
  explicit Ed25519Key(void* pkey) : pkey_(pkey) {}
  void* pkey_;  // OpenSSL's EVP_PKEY
};

}  // namespace winml::remote::signing

// Signed entries. A writer holding the key signs every action entry it
// uploads; a reader holding the key (the shared secret, or the public half
// of the writer's key) accepts only entries whose signature verifies, so
// that write access to the server is no longer enough to make its builds
// restore chosen bytes. What is signed is a digest of the entry: SHA-256
// over a fixed prefix, the entry's record (key, implementation, metrics,
// each output's name, XXH3 digest and size) and each output's SHA-256.
//
// The signature travels inside the entry, as a last record line of the text
// that stdout_raw carries (action_message.h): servers store it as they store
// the rest. Two schemes (signing_primitives.h: OpenSSL's libcrypto; on
// Windows BCrypt, and OpenSSL's DLL for Ed25519):
//
//   hmac-sha256  a shared secret of at least 32 bytes: the key file's
//                content, without trailing white space
//   ed25519      a PEM private key signs (and verifies), a PEM public key
//                verifies: `openssl genpkey -algorithm ed25519 -out key.pem`,
//                `openssl pkey -in key.pem -pubout -out key.pub`
//
// The key's bytes appear in no message, log or report.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace winml::remote {

namespace signing {
class Ed25519Key;
}

class EntryKey {
 public:
  // Reads a key file. InputError naming the file (never quoting it) when it
  // cannot be read, is an encrypted or unsupported PEM key, or a secret
  // shorter than 32 bytes; on Windows also for an Ed25519 key when OpenSSL's
  // DLL cannot be found.
  static std::shared_ptr<const EntryKey> load(const std::filesystem::path& file);
  // A key that must sign (WINML_MAKE_REMOTE_CACHE_SIGNING_KEY): as load(),
  // and an InputError naming the file for a public key, which only
  // verifies: a writer given one would upload unsigned entries that every
  // reader holding the key refuses.
  static std::shared_ptr<const EntryKey> load_signing(const std::filesystem::path& file);
  ~EntryKey();
  EntryKey(const EntryKey&) = delete;
  EntryKey& operator=(const EntryKey&) = delete;

  const char* scheme() const;  // "hmac-sha256" or "ed25519"
  bool can_sign() const;       // a secret or a private key
  // The signature of `digest` (raw bytes). Requires can_sign().
  std::string sign(std::string_view digest) const;
  bool verify(std::string_view digest, std::string_view signature) const;

 private:
  EntryKey();
  bool private_ = false;
  std::string secret_;                                // HMAC; wiped when destroyed
  std::unique_ptr<signing::Ed25519Key> ed25519_key_;  // Ed25519
};

// What is signed: 32 raw bytes.
std::string signing_digest(std::string_view record, const std::vector<std::string>& sha256s);

// The record line carrying a signature, appended to an entry's record.
std::string signature_line(const EntryKey& key, std::string_view record, const std::vector<std::string>& sha256s);

struct Signature {
  std::string scheme;
  std::string bytes;
};
// Splits a trailing signature line off `text` (an entry's record as it
// came): `text` keeps the record alone. Nothing when there is none.
std::optional<Signature> split_signature(std::string_view& text);

}  // namespace winml::remote

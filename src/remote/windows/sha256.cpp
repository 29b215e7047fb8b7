// Sha256 through BCrypt (system_libraries.h): a hash handle of the shared
// SHA-256 algorithm handle, per object.
#include "remote/sha256.h"

#include <new>

#include "remote/windows/system_libraries.h"

namespace winml::remote {

Sha256::Sha256() : ctx_(nullptr) {
  const auto& b = system_libraries::bcrypt();
  BCRYPT_HASH_HANDLE hash = nullptr;
  // No object buffer: BCrypt allocates the hash's state itself (Windows 7 on).
  if (!BCRYPT_SUCCESS(b.create_hash(b.sha256, &hash, nullptr, 0, nullptr, 0, 0))) throw std::bad_alloc();
  ctx_ = hash;
}

Sha256::~Sha256() { system_libraries::bcrypt().destroy_hash(static_cast<BCRYPT_HASH_HANDLE>(ctx_)); }

void Sha256::update(const void* data, std::size_t size) {
  // BCryptHashData takes a ULONG count: feed 1 GiB at most at a time.
  const auto* p = static_cast<const unsigned char*>(data);
  while (size > 0) {
    const ULONG n = size > (1ul << 30) ? (1ul << 30) : static_cast<ULONG>(size);
    system_libraries::bcrypt().hash_data(static_cast<BCRYPT_HASH_HANDLE>(ctx_), const_cast<PUCHAR>(p), n, 0);
    p += n;
    size -= n;
  }
}

std::string Sha256::hex() {
  unsigned char md[32];
  system_libraries::bcrypt().finish_hash(static_cast<BCRYPT_HASH_HANDLE>(ctx_), md, sizeof md, 0);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : md) out += digits[c >> 4], out += digits[c & 15];
  return out;
}

}  // namespace winml::remote

// Sha256 through OpenSSL's libcrypto (crypto_api.h).
#include "remote/sha256.h"

#include <new>

#include "remote/posix/crypto_api.h"

namespace winml::remote {

namespace {
EVP_MD_CTX* as_ctx(void* p) { return static_cast<EVP_MD_CTX*>(p); }
}  // namespace

Sha256::Sha256() : ctx_(crypto_api().md_ctx_new()) {
  const CryptoApi& c = crypto_api();
  if (!ctx_ || c.digest_init_ex(as_ctx(ctx_), c.sha256(), nullptr) != 1) throw std::bad_alloc();
}

Sha256::~Sha256() { crypto_api().md_ctx_free(as_ctx(ctx_)); }

void Sha256::update(const void* data, std::size_t size) { crypto_api().digest_update(as_ctx(ctx_), data, size); }

std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  crypto_api().digest_final_ex(as_ctx(ctx_), md, &n);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) out += digits[md[i] >> 4], out += digits[md[i] & 15];
  return out;
}

}  // namespace winml::remote

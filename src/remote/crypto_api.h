// The libcrypto functions SHA-256 needs, resolved from OpenSSL's libcrypto on
// first use (see base/shared_library.h for why it is not linked).
#pragma once

#include <openssl/evp.h>

namespace winml::remote {

struct CryptoApi {
  EVP_MD_CTX* (*md_ctx_new)();
  void (*md_ctx_free)(EVP_MD_CTX*);
  const EVP_MD* (*sha256)();
  int (*digest_init_ex)(EVP_MD_CTX*, const EVP_MD*, ENGINE*);
  int (*digest_update)(EVP_MD_CTX*, const void*, size_t);
  int (*digest_final_ex)(EVP_MD_CTX*, unsigned char*, unsigned int*);
};

// Loads libcrypto once; throws BuildError naming the library when it cannot.
const CryptoApi& crypto_api();

}  // namespace winml::remote

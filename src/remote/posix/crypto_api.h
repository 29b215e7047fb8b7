// The libcrypto functions the shared cache uses, resolved from OpenSSL's
// libcrypto on first use (see base/shared_library.h for why it is not
// linked): SHA-256 whenever a server is named; HMAC and Ed25519 only when
// entries are signed or verified.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>

namespace winml::remote {

struct CryptoApi {
  EVP_MD_CTX* (*md_ctx_new)();
  void (*md_ctx_free)(EVP_MD_CTX*);
  const EVP_MD* (*sha256)();
  int (*digest_init_ex)(EVP_MD_CTX*, const EVP_MD*, ENGINE*);
  int (*digest_update)(EVP_MD_CTX*, const void*, size_t);
  int (*digest_final_ex)(EVP_MD_CTX*, unsigned char*, unsigned int*);
};

struct SigningApi {
  unsigned char* (*hmac)(const EVP_MD*, const void* key, int key_len, const unsigned char* data, size_t n,
                         unsigned char* md, unsigned int* md_len);
  int (*memcmp)(const void*, const void*, size_t);  // constant time
  void (*cleanse)(void*, size_t);
  BIO* (*bio_new_mem_buf)(const void*, int);
  int (*bio_free)(BIO*);
  EVP_PKEY* (*read_private_key)(BIO*, EVP_PKEY**, pem_password_cb*, void*);
  EVP_PKEY* (*read_public_key)(BIO*, EVP_PKEY**, pem_password_cb*, void*);
  void (*pkey_free)(EVP_PKEY*);
  int (*pkey_id)(const EVP_PKEY*);
  int (*digest_sign_init)(EVP_MD_CTX*, EVP_PKEY_CTX**, const EVP_MD*, ENGINE*, EVP_PKEY*);
  int (*digest_sign)(EVP_MD_CTX*, unsigned char*, size_t*, const unsigned char*, size_t);
  int (*digest_verify_init)(EVP_MD_CTX*, EVP_PKEY_CTX**, const EVP_MD*, ENGINE*, EVP_PKEY*);
  int (*digest_verify)(EVP_MD_CTX*, const unsigned char*, size_t, const unsigned char*, size_t);
  void (*clear_errors)();
};

// Loads libcrypto once; throws BuildError naming the library when it cannot.
const CryptoApi& crypto_api();
// The signing functions of the same library, resolved on first use.
const SigningApi& signing_api();

}  // namespace winml::remote

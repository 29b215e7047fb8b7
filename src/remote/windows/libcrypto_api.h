// The few functions of OpenSSL's libcrypto that Ed25519 keys need (BCrypt has
// no Ed25519), from its DLL: OpenSSL 3's libcrypto-3-x64.dll, else 1.1's
// libcrypto-1_1-x64.dll, which Git for Windows and OpenSSL's Windows
// installers ship. Loaded only when an Ed25519 key is used. The prototypes
// are declared here with opaque pointers (OpenSSL's C ABI, stable across 1.1
// and 3), so no OpenSSL headers are needed to build.
#pragma once

#include <cstddef>
#include <string>

namespace winml::remote::libcrypto {

using PemPasswordCallback = int (*)(char* buffer, int size, int rwflag, void* user);

struct Api {
  void* (*bio_new_mem_buf)(const void* data, int size);  // BIO*
  int (*bio_free)(void* bio);
  void* (*read_private_key)(void* bio, void** out, PemPasswordCallback, void* user);  // EVP_PKEY*
  void* (*read_public_key)(void* bio, void** out, PemPasswordCallback, void* user);
  void (*pkey_free)(void* pkey);
  int (*pkey_id)(const void* pkey);
  void* (*md_ctx_new)();  // EVP_MD_CTX*
  void (*md_ctx_free)(void* ctx);
  int (*digest_sign_init)(void* ctx, void** pctx, const void* md, void* engine, void* pkey);
  int (*digest_sign)(void* ctx, unsigned char* signature, std::size_t* size, const unsigned char* data,
                     std::size_t data_size);
  int (*digest_verify_init)(void* ctx, void** pctx, const void* md, void* engine, void* pkey);
  int (*digest_verify)(void* ctx, const unsigned char* signature, std::size_t size, const unsigned char* data,
                       std::size_t data_size);
  void (*clear_errors)();
};

inline constexpr int kEd25519Id = 1087;  // NID_ED25519 / EVP_PKEY_ED25519

// Loads the DLL once; nothing when none loads, with `why` saying what was
// tried (a failure is remembered, not retried).
const Api* api(std::string* why);

}  // namespace winml::remote::libcrypto

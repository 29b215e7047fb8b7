#include "remote/posix/crypto_api.h"

#include "base/error.h"
#include "base/shared_library.h"

namespace winml::remote {

namespace {

const SharedLibrary& crypto_library() {
  // A magic static: loaded once, thread-safe; a failure throws each time.
  static const SharedLibrary library{{"libcrypto.so.3", "libcrypto.so.1.1"}};
  return library;
}

template <class F>
F function(const char* name) {
  return crypto_library().function<F>(name);
}

}  // namespace

const CryptoApi& crypto_api() {
  static const CryptoApi api{
      function<decltype(CryptoApi::md_ctx_new)>("EVP_MD_CTX_new"),
      function<decltype(CryptoApi::md_ctx_free)>("EVP_MD_CTX_free"),
      function<decltype(CryptoApi::sha256)>("EVP_sha256"),
      function<decltype(CryptoApi::digest_init_ex)>("EVP_DigestInit_ex"),
      function<decltype(CryptoApi::digest_update)>("EVP_DigestUpdate"),
      function<decltype(CryptoApi::digest_final_ex)>("EVP_DigestFinal_ex"),
  };
  return api;
}

const SigningApi& signing_api() {
  static const SigningApi api{
      function<decltype(SigningApi::hmac)>("HMAC"),
      function<decltype(SigningApi::memcmp)>("CRYPTO_memcmp"),
      function<decltype(SigningApi::cleanse)>("OPENSSL_cleanse"),
      function<decltype(SigningApi::bio_new_mem_buf)>("BIO_new_mem_buf"),
      function<decltype(SigningApi::bio_free)>("BIO_free"),
      function<decltype(SigningApi::read_private_key)>("PEM_read_bio_PrivateKey"),
      function<decltype(SigningApi::read_public_key)>("PEM_read_bio_PUBKEY"),
      function<decltype(SigningApi::pkey_free)>("EVP_PKEY_free"),
      [] {
        // OpenSSL 3 renamed EVP_PKEY_id (now a macro) to EVP_PKEY_get_id.
        try {
          return function<decltype(SigningApi::pkey_id)>("EVP_PKEY_get_id");
        } catch (const BuildError&) {
          return function<decltype(SigningApi::pkey_id)>("EVP_PKEY_id");
        }
      }(),
      function<decltype(SigningApi::digest_sign_init)>("EVP_DigestSignInit"),
      function<decltype(SigningApi::digest_sign)>("EVP_DigestSign"),
      function<decltype(SigningApi::digest_verify_init)>("EVP_DigestVerifyInit"),
      function<decltype(SigningApi::digest_verify)>("EVP_DigestVerify"),
      function<decltype(SigningApi::clear_errors)>("ERR_clear_error"),
  };
  return api;
}

}  // namespace winml::remote

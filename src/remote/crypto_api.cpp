#include "remote/crypto_api.h"

#include "base/shared_library.h"

namespace winml::remote {

namespace {

struct LoadedCrypto {
  SharedLibrary library{{"libcrypto.so.3", "libcrypto.so.1.1"}};
  CryptoApi api{
      library.function<decltype(CryptoApi::md_ctx_new)>("EVP_MD_CTX_new"),
      library.function<decltype(CryptoApi::md_ctx_free)>("EVP_MD_CTX_free"),
      library.function<decltype(CryptoApi::sha256)>("EVP_sha256"),
      library.function<decltype(CryptoApi::digest_init_ex)>("EVP_DigestInit_ex"),
      library.function<decltype(CryptoApi::digest_update)>("EVP_DigestUpdate"),
      library.function<decltype(CryptoApi::digest_final_ex)>("EVP_DigestFinal_ex"),
  };
};

}  // namespace

const CryptoApi& crypto_api() {
  // A magic static: loaded once, thread-safe; a failure throws each time.
  static const LoadedCrypto loaded;
  return loaded.api;
}

}  // namespace winml::remote

// Signed entries' cryptography through OpenSSL's libcrypto (crypto_api.h).
#include "remote/signing_primitives.h"

#include <string.h>

#include "base/error.h"
#include "remote/posix/crypto_api.h"

namespace winml::remote::signing {

namespace {

constexpr int kEd25519Id = 1087;  // NID_ED25519 / EVP_PKEY_ED25519

EVP_PKEY* as_pkey(void* p) { return static_cast<EVP_PKEY*>(p); }

// PEM reading never asks for a pass phrase (OpenSSL's default would prompt
// on the terminal): an encrypted key fails to load instead.
int no_passphrase(char*, int, int, void*) { return -1; }

// Runs `op` on a fresh digest context (Ed25519 signs in one shot).
template <class Op>
bool with_md_ctx(Op op) {
  EVP_MD_CTX* ctx = crypto_api().md_ctx_new();
  if (!ctx) return false;
  const bool ok = op(ctx);
  crypto_api().md_ctx_free(ctx);
  signing_api().clear_errors();
  return ok;
}

}  // namespace

std::string hmac_sha256(std::string_view secret, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!signing_api().hmac(crypto_api().sha256(), secret.data(), static_cast<int>(secret.size()),
                          reinterpret_cast<const unsigned char*>(data.data()), data.size(), md, &n))
    throw BuildError("HMAC-SHA-256 failed");
  return std::string(reinterpret_cast<const char*>(md), n);
}

bool equal_in_constant_time(std::string_view a, std::string_view b) {
  return a.size() == b.size() && signing_api().memcmp(a.data(), b.data(), a.size()) == 0;
}

// explicit_bzero rather than OPENSSL_cleanse: a destructor wipes, and must
// not be the one to load libcrypto.
void wipe(void* data, std::size_t size) { ::explicit_bzero(data, size); }

std::unique_ptr<Ed25519Key> Ed25519Key::from_pem(std::string_view pem, bool private_key, const std::string&,
                                                 Problem* problem) {
  const SigningApi& api = signing_api();
  BIO* bio = api.bio_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* pkey = bio ? (private_key ? api.read_private_key(bio, nullptr, no_passphrase, nullptr)
                                      : api.read_public_key(bio, nullptr, no_passphrase, nullptr))
                       : nullptr;
  if (bio) api.bio_free(bio);
  api.clear_errors();
  if (!pkey) {
    *problem = Problem::kUnreadable;
    return nullptr;
  }
  if (api.pkey_id(pkey) != kEd25519Id) {
    api.pkey_free(pkey);
    *problem = Problem::kNotEd25519;
    return nullptr;
  }
  *problem = Problem::kNone;
  return std::unique_ptr<Ed25519Key>(new Ed25519Key(pkey));
}

Ed25519Key::~Ed25519Key() { signing_api().pkey_free(as_pkey(pkey_)); }

std::string Ed25519Key::sign(std::string_view message) const {
  const SigningApi& api = signing_api();
  std::string signature(kEd25519SignatureBytes, '\0');
  std::size_t n = signature.size();
  const bool ok = with_md_ctx([&](EVP_MD_CTX* ctx) {
    return api.digest_sign_init(ctx, nullptr, nullptr, nullptr, as_pkey(pkey_)) == 1 &&
           api.digest_sign(ctx, reinterpret_cast<unsigned char*>(signature.data()), &n,
                           reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  });
  if (!ok) throw BuildError("Ed25519 signing failed");
  signature.resize(n);
  return signature;
}

bool Ed25519Key::verify(std::string_view message, std::string_view signature) const {
  const SigningApi& api = signing_api();
  return with_md_ctx([&](EVP_MD_CTX* ctx) {
    return api.digest_verify_init(ctx, nullptr, nullptr, nullptr, as_pkey(pkey_)) == 1 &&
           api.digest_verify(ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                             reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  });
}

}  // namespace winml::remote::signing

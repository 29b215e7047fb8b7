// Signed entries' cryptography on Windows: HMAC-SHA-256 through BCrypt;
// Ed25519, which BCrypt lacks, through OpenSSL's DLL (libcrypto_api.h),
// loaded only when an Ed25519 key is read.
#include "remote/signing_primitives.h"

#include "base/error.h"
#include "remote/windows/libcrypto_api.h"
#include "remote/windows/system_libraries.h"

namespace winml::remote::signing {

namespace {

int no_passphrase(char*, int, int, void*) { return -1; }  // an encrypted key fails to load, never prompts

const libcrypto::Api& loaded_libcrypto() {
  std::string why;
  const libcrypto::Api* api = libcrypto::api(&why);
  if (!api) throw BuildError(why);  // only after a key was read with it
  return *api;
}

// Runs `op` on a fresh digest context (Ed25519 signs in one shot).
template <class Op>
bool with_digest_context(Op op) {
  const libcrypto::Api& api = loaded_libcrypto();
  void* ctx = api.md_ctx_new();
  if (!ctx) return false;
  const bool ok = op(api, ctx);
  api.md_ctx_free(ctx);
  api.clear_errors();
  return ok;
}

}  // namespace

std::string hmac_sha256(std::string_view secret, std::string_view data) {
  const auto& b = system_libraries::bcrypt();
  BCRYPT_HASH_HANDLE hash = nullptr;
  unsigned char md[kHmacSha256Bytes];
  const bool ok = BCRYPT_SUCCESS(b.create_hash(b.hmac_sha256, &hash, nullptr, 0,
                                               reinterpret_cast<PUCHAR>(const_cast<char*>(secret.data())),
                                               static_cast<ULONG>(secret.size()), 0)) &&
                  BCRYPT_SUCCESS(b.hash_data(hash, reinterpret_cast<PUCHAR>(const_cast<char*>(data.data())),
                                             static_cast<ULONG>(data.size()), 0)) &&
                  BCRYPT_SUCCESS(b.finish_hash(hash, md, sizeof md, 0));
  if (hash) b.destroy_hash(hash);
  if (!ok) throw BuildError("HMAC-SHA-256 failed");
  return std::string(reinterpret_cast<const char*>(md), sizeof md);
}

bool equal_in_constant_time(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  // Every byte is compared, whatever differs first; volatile keeps the
  // compiler from ending the loop early.
  volatile unsigned char differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differ = differ | static_cast<unsigned char>(a[i] ^ b[i]);
  return differ == 0;
}

void wipe(void* data, std::size_t size) { SecureZeroMemory(data, size); }

std::unique_ptr<Ed25519Key> Ed25519Key::from_pem(std::string_view pem, bool private_key, const std::string& file,
                                                 Problem* problem) {
  std::string why;
  const libcrypto::Api* api = libcrypto::api(&why);
  if (!api)
    throw InputError(file_error(file,
                                "an Ed25519 key needs OpenSSL's libcrypto-3-x64.dll (Windows' BCrypt has no "
                                "Ed25519): " +
                                    why +
                                    "; install Git for Windows or OpenSSL for Windows (both ship it) or put the "
                                    "DLL on PATH, or use an HMAC secret of at least 32 bytes instead"));
  void* bio = api->bio_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  void* pkey = bio ? (private_key ? api->read_private_key(bio, nullptr, no_passphrase, nullptr)
                                  : api->read_public_key(bio, nullptr, no_passphrase, nullptr))
                   : nullptr;
  if (bio) api->bio_free(bio);
  api->clear_errors();
  if (!pkey) {
    *problem = Problem::kUnreadable;
    return nullptr;
  }
  if (api->pkey_id(pkey) != libcrypto::kEd25519Id) {
    api->pkey_free(pkey);
    *problem = Problem::kNotEd25519;
    return nullptr;
  }
  *problem = Problem::kNone;
  return std::unique_ptr<Ed25519Key>(new Ed25519Key(pkey));
}

Ed25519Key::~Ed25519Key() { loaded_libcrypto().pkey_free(pkey_); }

std::string Ed25519Key::sign(std::string_view message) const {
  std::string signature(kEd25519SignatureBytes, '\0');
  std::size_t n = signature.size();
  const bool ok = with_digest_context([&](const libcrypto::Api& api, void* ctx) {
    return api.digest_sign_init(ctx, nullptr, nullptr, nullptr, pkey_) == 1 &&
           api.digest_sign(ctx, reinterpret_cast<unsigned char*>(signature.data()), &n,
                           reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  });
  if (!ok) throw BuildError("Ed25519 signing failed");
  signature.resize(n);
  return signature;
}

bool Ed25519Key::verify(std::string_view message, std::string_view signature) const {
  return with_digest_context([&](const libcrypto::Api& api, void* ctx) {
    return api.digest_verify_init(ctx, nullptr, nullptr, nullptr, pkey_) == 1 &&
           api.digest_verify(ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                             reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  });
}

}  // namespace winml::remote::signing

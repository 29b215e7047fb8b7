#include "remote/entry_signature.h"

#include "base/atomic_file.h"
#include "base/error.h"
#include "remote/crypto_api.h"
#include "remote/sha256.h"
#include "store/record_io.h"

namespace winml::remote {

namespace {

constexpr std::size_t kMinSecretBytes = 32;
constexpr std::size_t kEd25519SignatureBytes = 64;
constexpr int kEd25519Id = 1087;  // NID_ED25519 / EVP_PKEY_ED25519

EVP_PKEY* as_pkey(void* p) { return static_cast<EVP_PKEY*>(p); }

std::string to_hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) out += digits[c >> 4], out += digits[c & 15];
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  auto nibble = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  if (hex.size() % 2) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

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

std::shared_ptr<const EntryKey> EntryKey::load(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::string text;
  try {
    text = read_file(file);
  } catch (const InputError&) {
    throw InputError(file_error(name, "cannot read this cache signing key file"));
  }
  std::shared_ptr<EntryKey> key(new EntryKey());
  const SigningApi& api = signing_api();
  if (text.find("-----BEGIN ") != std::string::npos) {
    if (text.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string::npos)
      throw InputError(file_error(name, "an encrypted private key: store the Ed25519 key without a pass phrase"));
    key->private_ = text.find("-----BEGIN PRIVATE KEY-----") != std::string::npos;
    BIO* bio = api.bio_new_mem_buf(text.data(), static_cast<int>(text.size()));
    EVP_PKEY* pkey = bio ? (key->private_ ? api.read_private_key(bio, nullptr, no_passphrase, nullptr)
                                          : api.read_public_key(bio, nullptr, no_passphrase, nullptr))
                         : nullptr;
    if (bio) api.bio_free(bio);
    api.cleanse(text.data(), text.size());
    api.clear_errors();
    if (!pkey) throw InputError(file_error(name, "not a PEM private or public key that OpenSSL reads"));
    if (api.pkey_id(pkey) != kEd25519Id) {
      api.pkey_free(pkey);
      throw InputError(file_error(name, "not an Ed25519 key (make one with: openssl genpkey -algorithm ed25519)"));
    }
    key->ed25519_ = true;
    key->pkey_ = pkey;
    return key;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
    text.pop_back();
  if (text.size() < kMinSecretBytes) {
    api.cleanse(text.data(), text.size());
    throw InputError(file_error(name, "an HMAC secret needs at least " + std::to_string(kMinSecretBytes) +
                                          " bytes (e.g. openssl rand -hex 32), or give a PEM Ed25519 key"));
  }
  key->secret_ = std::move(text);
  key->private_ = true;
  return key;
}

EntryKey::~EntryKey() {
  if (pkey_) signing_api().pkey_free(as_pkey(pkey_));
  if (!secret_.empty()) signing_api().cleanse(secret_.data(), secret_.size());
}

const char* EntryKey::scheme() const { return ed25519_ ? "ed25519" : "hmac-sha256"; }

bool EntryKey::can_sign() const { return private_; }

std::string EntryKey::sign(std::string_view digest) const {
  const SigningApi& api = signing_api();
  if (!ed25519_) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (!api.hmac(crypto_api().sha256(), secret_.data(), static_cast<int>(secret_.size()),
                  reinterpret_cast<const unsigned char*>(digest.data()), digest.size(), md, &n))
      throw BuildError("HMAC-SHA-256 failed");
    return std::string(reinterpret_cast<const char*>(md), n);
  }
  std::string signature(kEd25519SignatureBytes, '\0');
  std::size_t n = signature.size();
  const bool ok = private_ && with_md_ctx([&](EVP_MD_CTX* ctx) {
                    return api.digest_sign_init(ctx, nullptr, nullptr, nullptr, as_pkey(pkey_)) == 1 &&
                           api.digest_sign(ctx, reinterpret_cast<unsigned char*>(signature.data()), &n,
                                           reinterpret_cast<const unsigned char*>(digest.data()), digest.size()) == 1;
                  });
  if (!ok) throw BuildError("Ed25519 signing failed");
  signature.resize(n);
  return signature;
}

bool EntryKey::verify(std::string_view digest, std::string_view signature) const {
  if (!ed25519_) {
    const std::string expected = sign(digest);
    return signature.size() == expected.size() &&
           signing_api().memcmp(expected.data(), signature.data(), expected.size()) == 0;
  }
  const SigningApi& api = signing_api();
  return signature.size() == kEd25519SignatureBytes && with_md_ctx([&](EVP_MD_CTX* ctx) {
           return api.digest_verify_init(ctx, nullptr, nullptr, nullptr, as_pkey(pkey_)) == 1 &&
                  api.digest_verify(ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                                    reinterpret_cast<const unsigned char*>(digest.data()), digest.size()) == 1;
         });
}

std::string signing_digest(std::string_view record, const std::vector<std::string>& sha256s) {
  // Length-prefixed parts: no two entries give the same bytes to hash.
  Sha256 h;
  auto part = [&](std::string_view bytes) {
    const std::string length = std::to_string(bytes.size()) + ":";
    h.update(length);
    h.update(bytes);
  };
  part("winml-make signed entry v1");
  part(record);
  for (const auto& sha : sha256s) part(sha);
  const std::string hex = h.hex();
  return *from_hex(hex);
}

std::string signature_line(const EntryKey& key, std::string_view record, const std::vector<std::string>& sha256s) {
  std::string line;
  store::RecordWriter w;
  w.field("S").field(key.scheme()).field(to_hex(key.sign(signing_digest(record, sha256s))));
  w.finish(line);
  return line;
}

std::optional<Signature> split_signature(std::string_view& text) {
  if (text.empty() || text.back() != '\n') return std::nullopt;
  const std::size_t before = text.rfind('\n', text.size() - 2);
  const std::size_t start = before == std::string_view::npos ? 0 : before + 1;
  store::RecordReader reader(text.substr(start));
  std::vector<std::string_view> f;
  if (!reader.next(f) || f.size() != 3 || f[0] != "S") return std::nullopt;
  auto bytes = from_hex(f[2]);
  if (!bytes || f[1].empty() || f[1].size() > 32 ||
      f[1].find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string_view::npos)
    return std::nullopt;
  Signature s{store::field_text(f[1]), std::move(*bytes)};
  text = text.substr(0, start);
  return s;
}

}  // namespace winml::remote

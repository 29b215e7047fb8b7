#include "remote/entry_signature.h"

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/path_text.h"
#include "remote/sha256.h"
#include "remote/signing_primitives.h"
#include "store/record_io.h"

namespace winml::remote {

namespace {

constexpr std::size_t kMinSecretBytes = 32;

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

// A key file's text, wiped when it goes out of scope whatever happens.
struct WipedText {
  std::string text;
  ~WipedText() {
    if (!text.empty()) signing::wipe(text.data(), text.size());
  }
};

}  // namespace

std::shared_ptr<const EntryKey> EntryKey::load(const std::filesystem::path& file) {
  const std::string name = to_utf8(file);
  WipedText key_text;
  std::string& text = key_text.text;
  try {
    text = read_file(file);
  } catch (const InputError&) {
    throw InputError(file_error(name, "cannot read this cache signing key file"));
  }
  std::shared_ptr<EntryKey> key(new EntryKey());
  if (text.find("-----BEGIN ") != std::string::npos) {
    if (text.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string::npos)
      throw InputError(file_error(name, "an encrypted private key: store the Ed25519 key without a pass phrase"));
    key->private_ = text.find("-----BEGIN PRIVATE KEY-----") != std::string::npos;
    auto problem = signing::Ed25519Key::Problem::kNone;
    key->ed25519_key_ = signing::Ed25519Key::from_pem(text, key->private_, name, &problem);
    if (problem == signing::Ed25519Key::Problem::kNotEd25519)
      throw InputError(file_error(name, "not an Ed25519 key (make one with: openssl genpkey -algorithm ed25519)"));
    if (!key->ed25519_key_) throw InputError(file_error(name, "not a PEM private or public key that OpenSSL reads"));
    return key;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
    text.pop_back();
  if (text.size() < kMinSecretBytes)
    throw InputError(file_error(name, "an HMAC secret needs at least " + std::to_string(kMinSecretBytes) +
                                          " bytes (e.g. openssl rand -hex 32), or give a PEM Ed25519 key"));
  key->secret_ = text;
  key->private_ = true;
  return key;
}

std::shared_ptr<const EntryKey> EntryKey::load_signing(const std::filesystem::path& file) {
  auto key = load(file);
  if (!key->can_sign())
    throw InputError(file_error(to_utf8(file),
                                "a public key, which cannot sign: WINML_MAKE_REMOTE_CACHE_SIGNING_KEY takes the private "
                                "key (openssl genpkey -algorithm ed25519 -out key.pem); readers that only verify set "
                                "WINML_MAKE_REMOTE_CACHE_VERIFY_KEY to this file"));
  return key;
}

EntryKey::EntryKey() = default;

EntryKey::~EntryKey() {
  if (!secret_.empty()) signing::wipe(secret_.data(), secret_.size());
}

const char* EntryKey::scheme() const { return ed25519_key_ ? "ed25519" : "hmac-sha256"; }

bool EntryKey::can_sign() const { return private_; }

std::string EntryKey::sign(std::string_view digest) const {
  if (!ed25519_key_) return signing::hmac_sha256(secret_, digest);
  if (!private_) throw BuildError("Ed25519 signing failed");
  return ed25519_key_->sign(digest);
}

bool EntryKey::verify(std::string_view digest, std::string_view signature) const {
  if (!ed25519_key_) return signing::equal_in_constant_time(sign(digest), signature);
  return signature.size() == signing::kEd25519SignatureBytes && ed25519_key_->verify(digest, signature);
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

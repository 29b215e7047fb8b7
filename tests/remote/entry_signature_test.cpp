// Signed entries at unit level: HMAC-SHA-256 and Ed25519 keys (made by the
// openssl command, as docs/ci-cache.md tells users, and kept here as text so
// that no test needs the command), signatures carried in the entry's record
// through the wire format, and key files that cannot be used, refused without
// quoting them.
#include <gtest/gtest.h>

#include "base/error.h"
#include "base/path_text.h"
#include "remote/action_message.h"
#include "remote/entry_signature.h"
#include "remote/sha256.h"
#include "support/platform.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

const std::string kSecret = "d2b8f5a9c1e74f3a8b6d0c2e9f1a7b5c3e8d6f4a2c0b9e7d5f3a1c8b6e4d2f0a";

store::ActionEntry signed_sample() {
  store::ActionEntry e;
  e.key = store::digest_of("a key");
  e.implementation = "package";
  e.metrics_json = R"({"source":"compiled.onnx"})";
  e.outputs = {{"model.onnx", store::digest_of("model"), 5}, {"model_ref.bin", store::digest_of("blob"), 4}};
  return e;
}

std::vector<std::string> signed_sample_shas() { return {remote::sha256_hex("model"), remote::sha256_hex("blob")}; }

// `openssl genpkey -algorithm ed25519`, and its public half (`openssl pkey -pubout`).
const char* kEd25519Key =
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJeqsuL6fVFu6CJmOpvddE/Lu7O0500b3lkZj9cgCWAX\n"
    "-----END PRIVATE KEY-----\n";
const char* kEd25519Public =
    "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA3gHO+0AQN0MPtJceHUnBT20oZSloKTl3x7TSNsE4CP4=\n"
    "-----END PUBLIC KEY-----\n";
const char* kOtherEd25519Key =
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIOGrnYccagsKbvzNGj73gUE2wOAQcrZB1pEhJGK4NCc6\n"
    "-----END PRIVATE KEY-----\n";
// `-aes256 -pass pass:winml`.
const char* kEncryptedEd25519Key =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIGbMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAhIbGS2l9xUjwICCAAw\n"
    "DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEGuaYkN2APasWB8D+kdpapkEQHrJ\n"
    "XMKlBjfu3P68yZCUc5u4fTh25pau2GC2iVy35FkJ1LIzVk6lxlgC0kpOcBJY018k\n"
    "TeXhakX1+j1pxZRWEyQ=\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";
// `-algorithm EC -pkeyopt ec_paramgen_curve:P-256`.
const char* kP256Key =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg5gQyvotvDXG66qg8\n"
    "y/TdAzxQK+CoPOiIzSHRDG5OsIyhRANCAAS1FEbPXx/F2EQlzc6B9hnEYVpbI1d4\n"
    "sBQFtxxal6b1X54uVC689UHIQBWSE4OdG3SFYOGYzpZgZx9eMGYEfNWO\n"
    "-----END PRIVATE KEY-----\n";

fs::path key_file(const test::TempDir& dir, const std::string& name, const char* text) {
  test::write_text(dir / name, text);
  return dir / name;
}

// The message of the InputError loading `file` raises ("" when it loads).
std::string load_error(const fs::path& file) {
  try {
    remote::EntryKey::load(file);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

// Windows reads PEM keys with OpenSSL's DLL, which may be absent: then the key
// file's error says how to get it (checked here), and the test skips.
#define SKIP_WHERE_NO_LIBRARY_READS_PEM_KEYS(dir)                                                      \
  do {                                                                                                 \
    const fs::path probe = key_file((dir), "probe.pub", kEd25519Public);                               \
    const std::string error = load_error(probe);                                                       \
    if (!test::on_posix() && error.find("needs OpenSSL's libcrypto-3-x64.dll") != std::string::npos) { \
      EXPECT_NE(error.find(to_utf8(probe) + ": "), std::string::npos) << error;                        \
      EXPECT_NE(error.find("Git for Windows"), std::string::npos) << error;                            \
      EXPECT_NE(error.find("HMAC secret"), std::string::npos) << error;                                \
      GTEST_SKIP() << "no libcrypto-3-x64.dll: " << error;                                             \
    }                                                                                                  \
    ASSERT_EQ(error, "");                                                                              \
  } while (0)

}  // namespace

TEST(EntrySignature, HmacVerifiesWithTheSecretOnlyAndOnlyTheEntrySigned) {
  test::TempDir dir;
  test::write_text(dir / "a.secret", kSecret + "\n");
  test::write_text(dir / "b.secret", std::string(kSecret.rbegin(), kSecret.rend()));
  auto a = remote::EntryKey::load(dir / "a.secret");
  auto b = remote::EntryKey::load(dir / "b.secret");
  EXPECT_STREQ(a->scheme(), "hmac-sha256");
  EXPECT_TRUE(a->can_sign());
  const auto entry = signed_sample();
  auto decoded = remote::decode_action(remote::encode_action(entry, signed_sample_shas(), a.get()), entry.key);
  ASSERT_TRUE(decoded && decoded->signature);
  EXPECT_EQ(decoded->entry.outputs, entry.outputs) << "the signature line is not part of the record";
  EXPECT_FALSE(remote::signature_problem(*decoded, *a));
  auto other = remote::signature_problem(*decoded, *b);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->reason, store::rejection::kBadSignature);
  // Another blob under the same record: the signature covers the SHA-256s.
  auto swapped = *decoded;
  swapped.blobs[1].sha256 = remote::sha256_hex("other blob");
  EXPECT_TRUE(remote::signature_problem(swapped, *a));
  // Unsigned.
  auto unsigned_entry = remote::decode_action(remote::encode_action(entry, signed_sample_shas()), entry.key);
  ASSERT_TRUE(unsigned_entry);
  EXPECT_FALSE(unsigned_entry->signature);
  EXPECT_EQ(remote::signature_problem(*unsigned_entry, *a)->reason, store::rejection::kUnsigned);
}

TEST(EntrySignature, HmacSha256IsTheStandardOne) {
  // RFC 4231, test case 6 (a key longer than SHA-256's block; shorter
  // secrets are refused here): `openssl dgst -sha256 -mac HMAC` agrees.
  test::TempDir dir;
  test::write_text(dir / "rfc4231.secret", std::string(131, '\xaa'));
  auto key = remote::EntryKey::load(dir / "rfc4231.secret");
  const std::string data = "Test Using Larger Than Block-Size Key - Hash Key First";
  const std::string mac = key->sign(data);
  ASSERT_EQ(mac.size(), 32u);
  std::string hex;
  for (unsigned char c : mac) hex += "0123456789abcdef"[c >> 4], hex += "0123456789abcdef"[c & 15];
  EXPECT_EQ(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_TRUE(key->verify(data, mac));
  EXPECT_FALSE(key->verify(data, mac.substr(0, 31)));
  EXPECT_FALSE(key->verify(data + ".", mac));
}

TEST(EntrySignature, Ed25519SignsWithThePrivateKeyAndVerifiesWithThePublicOne) {
  test::TempDir dir;
  SKIP_WHERE_NO_LIBRARY_READS_PEM_KEYS(dir);
  const fs::path key = key_file(dir, "key.pem", kEd25519Key);
  const fs::path pub = key_file(dir, "key.pub", kEd25519Public);
  const fs::path other = key_file(dir, "other.pem", kOtherEd25519Key);
  auto signer = remote::EntryKey::load(key);
  auto verifier = remote::EntryKey::load(pub);
  auto stranger = remote::EntryKey::load(other);
  EXPECT_STREQ(signer->scheme(), "ed25519");
  EXPECT_TRUE(signer->can_sign());
  EXPECT_FALSE(verifier->can_sign());
  // Ed25519 signs deterministically: the bytes of `openssl pkeyutl -sign -rawin` with this key.
  std::string hex;
  for (unsigned char c : signer->sign("a message"))
    hex += "0123456789abcdef"[c >> 4], hex += "0123456789abcdef"[c & 15];
  EXPECT_EQ(
      hex,
      "476e75fe8450b59aaa67fd170a7e4b2d75b10632125024c183f3864e92deadcdceb6b1c3914fd41a4a51c0e809502fbb60542e3ea42614"
      "a2a208e0fe6377dd0a");
  const auto entry = signed_sample();
  auto decoded = remote::decode_action(remote::encode_action(entry, signed_sample_shas(), signer.get()), entry.key);
  ASSERT_TRUE(decoded && decoded->signature);
  EXPECT_EQ(decoded->signature->bytes.size(), 64u);
  EXPECT_FALSE(remote::signature_problem(*decoded, *verifier));
  EXPECT_FALSE(remote::signature_problem(*decoded, *signer));
  EXPECT_EQ(remote::signature_problem(*decoded, *stranger)->reason, store::rejection::kBadSignature);
  // An HMAC reader refuses an Ed25519 signature, naming both schemes.
  test::write_text(dir / "s.secret", kSecret);
  auto hmac = remote::EntryKey::load(dir / "s.secret");
  EXPECT_EQ(remote::signature_problem(*decoded, *hmac)->detail, "signed with ed25519, not hmac-sha256");
}

TEST(EntrySignature, KeyFilesThatCannotBeUsedAreRefusedNamingTheFileWithoutQuotingIt) {
  test::TempDir dir;
  test::write_text(dir / "short", "only-twenty-bytes!!!");
  EXPECT_NE(load_error(dir / "short").find(to_utf8(dir / "short") + ": an HMAC secret needs at least 32 bytes"),
            std::string::npos);
  EXPECT_EQ(load_error(dir / "short").find("only-twenty"), std::string::npos);
  EXPECT_NE(load_error(dir / "absent").find(to_utf8(dir / "absent") + ": cannot read"), std::string::npos);
  const fs::path encrypted = key_file(dir, "enc.pem", kEncryptedEd25519Key);
  EXPECT_NE(load_error(encrypted).find("an encrypted private key"), std::string::npos) << load_error(encrypted);
  SKIP_WHERE_NO_LIBRARY_READS_PEM_KEYS(dir);
  const fs::path ec = key_file(dir, "ec.pem", kP256Key);
  const std::string ec_error = load_error(ec);
  EXPECT_NE(ec_error.find(to_utf8(ec) + ": not an Ed25519 key"), std::string::npos) << ec_error;
  EXPECT_EQ(ec_error.find("BEGIN"), std::string::npos);
  test::write_text(dir / "broken.pem", "-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n");
  EXPECT_NE(load_error(dir / "broken.pem").find("not a PEM private or public key"), std::string::npos);
}

TEST(EntrySignature, ASignatureLineIsSplitOnlyWhenItIsOne) {
  test::TempDir dir;
  test::write_text(dir / "a.secret", kSecret);
  auto key = remote::EntryKey::load(dir / "a.secret");
  const std::string record = store::entry_text(signed_sample());
  std::string_view text = record;
  EXPECT_FALSE(remote::split_signature(text));
  EXPECT_EQ(text, record);
  const std::string signed_text = record + remote::signature_line(*key, record, signed_sample_shas());
  text = signed_text;
  auto s = remote::split_signature(text);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->scheme, "hmac-sha256");
  EXPECT_EQ(text, record);
  EXPECT_TRUE(key->verify(remote::signing_digest(record, signed_sample_shas()), s->bytes));
}

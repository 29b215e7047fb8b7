// Signed entries at unit level: HMAC-SHA-256 and Ed25519 keys (made by the
// openssl command, as docs/ci-cache.md tells users), signatures carried in
// the entry's record through the wire format, and key files that cannot be
// used, refused without quoting them.
#include <gtest/gtest.h>

#include "base/error.h"
#include "base/path_text.h"
#include "remote/action_message.h"
#include "remote/entry_signature.h"
#include "remote/sha256.h"
#include "support/cli_runner.h"
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

fs::path openssl_key(const test::TempDir& dir, const std::string& name, std::vector<std::string> args) {
  const fs::path out = dir / name;
  args.insert(args.begin(), "openssl");
  args.push_back("-out");
  args.push_back(out.string());
  auto r = test::run_program(args);
  EXPECT_EQ(r.exit_code, 0) << "openssl (scripts/install-deps.sh installs it): " << r.err;
  return out;
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
  const fs::path key = openssl_key(dir, "key.pem", {"genpkey", "-algorithm", "ed25519"});
  const fs::path pub = openssl_key(dir, "key.pub", {"pkey", "-in", key.string(), "-pubout"});
  const fs::path other = openssl_key(dir, "other.pem", {"genpkey", "-algorithm", "ed25519"});
  auto signer = remote::EntryKey::load(key);
  auto verifier = remote::EntryKey::load(pub);
  auto stranger = remote::EntryKey::load(other);
  EXPECT_STREQ(signer->scheme(), "ed25519");
  EXPECT_TRUE(signer->can_sign());
  EXPECT_FALSE(verifier->can_sign());
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
  const fs::path encrypted =
      openssl_key(dir, "enc.pem", {"genpkey", "-algorithm", "ed25519", "-aes256", "-pass", "pass:winml"});
  EXPECT_NE(load_error(encrypted).find("an encrypted private key"), std::string::npos) << load_error(encrypted);
  const fs::path ec =
      openssl_key(dir, "ec.pem", {"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"});
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

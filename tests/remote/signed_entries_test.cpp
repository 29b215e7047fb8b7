// Signed entries through the real CLI against nginx: a writer holding the
// key signs what it uploads, a reader holding the secret or the public key
// accepts only entries whose signature verifies, so a forged entry with
// consistent checksums (another model's package under this model's key) is
// refused; a reader without a key behaves as before. The key's bytes appear
// in no output, report, log, cache or server file.
#include <gtest/gtest.h>

#include <sstream>

#include "support/project.h"
#include "remote/server_entries.h"
#include "remote/wire_format.h"
#include "store/record_io.h"
#include "support/nginx_server.h"
#include "support/temp_dir.h"

using namespace winml;
using test::NginxServer;
using test::Project;
using test::ServerEntries;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

#define REQUIRE_NGINX() \
  if (!NginxServer::available()) GTEST_FAIL() << "nginx is not installed (scripts/install-deps.sh installs it)"

std::map<std::string, std::string> env_with(const std::string& url, const std::string& variable = "",
                                            const fs::path& key = {}) {
  std::map<std::string, std::string> env = {{"WINML_MAKE_REMOTE_CACHE", url}};
  if (!variable.empty()) env[variable] = key.string();
  return env;
}

// Every byte a run left anywhere: printed, reported, in files.
struct Traces {
  std::string printed;
  std::vector<fs::path> dirs;
  void add(const json& report) { printed += report.dump() + report.value("_stderr", ""); }
  // Whether `secret` shows anywhere.
  void expect_absent(const std::string& secret) const {
    ASSERT_FALSE(secret.empty());
    EXPECT_EQ(printed.find(secret), std::string::npos) << "the key was printed";
    for (const auto& dir : dirs)
      for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it)
        if (it->is_regular_file())
          EXPECT_EQ(test::read_text(it->path()).find(secret), std::string::npos) << "the key is in " << it->path();
  }
};

// Another model's package (model.onnx, model_ref.bin), written under this
// project's package key with consistent records: what an unsigned writer
// could always do.
void forge_other_models_package(ServerEntries& server, const store::Digest& package_key) {
  Project other;
  other.write_model("net.onnx", 99);
  other.write_config("[model]\nsource = \"net.onnx\"\n");
  other.build();
  store::ActionEntry entry;
  entry.key = package_key;
  entry.implementation = "package";
  std::vector<std::string> shas;
  for (const char* f : {"model.onnx", "model_ref.bin"})
    entry.outputs.push_back(server.put_blob(f, test::read_text(other.out("net", f)), &shas.emplace_back()));
  server.write(entry, shas);
}

std::string pem_body(const fs::path& pem) {
  // The key material: the base64 lines between the PEM armour.
  std::string text = test::read_text(pem), body;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with("-----")) body += line;
  return body.substr(0, 40);
}

void openssl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = test::run_program(argv);
  ASSERT_EQ(r.exit_code, 0) << "openssl (scripts/install-deps.sh installs it): " << r.err;
}

}  // namespace

TEST(SignedEntries, AnHmacWriterSignsAReaderWithTheSecretRefusesAForgedUnsignedEntry) {
  REQUIRE_NGINX();
  NginxServer server;
  test::TempDir keys;
  const std::string secret = "4f1c0e8b27d94a6e9b3c5d7f0a2e4c6b8d0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c";
  const fs::path key = keys / "cache.secret";
  test::write_text(key, secret + "\n");
  Traces traces;

  Project a;
  a.write_small_project();
  json first = a.build({}, 0, env_with(server.url(), "WINML_MAKE_REMOTE_CACHE_SIGNING_KEY", key));
  traces.add(first);
  EXPECT_EQ(first["remote_cache"]["uploads"], 6) << first.dump();
  EXPECT_EQ(first["remote_cache"]["signatures"], "sign and verify");
  ServerEntries entries(server);
  for (const char* stage : test::kCacheStages) {
    auto e = entries.read(test::stage_key(first, "net", stage));
    ASSERT_TRUE(e) << stage;
    ASSERT_TRUE(e->signature) << stage << " was uploaded unsigned";
    EXPECT_EQ(e->signature->scheme, "hmac-sha256");
  }

  // A reader without a key: as before, every signed entry restores.
  Project plain;
  a.clone_to(plain.root());
  json as_before = plain.build({}, 0, env_with(server.url()));
  EXPECT_EQ(as_before["remote_cache"]["hits"], 6) << as_before.dump();
  EXPECT_TRUE(as_before["cache_rejections"].empty());
  EXPECT_EQ(as_before["remote_cache"]["signatures"], "off");

  // Someone with write access puts another model's package under this key.
  forge_other_models_package(entries, test::stage_key(first, "net", "package"));
  const std::string puts_before = server.access_log();

  Project b;
  a.clone_to(b.root());
  json r = b.build({}, 0, env_with(server.url(), "WINML_MAKE_REMOTE_CACHE_VERIFY_KEY", key));
  traces.add(r);
  EXPECT_EQ(test::artifacts(a.root() / "build"), test::artifacts(b.root() / "build"));
  EXPECT_EQ(test::statuses(r).at("net/package"), "completed") << r.dump();
  EXPECT_EQ(r["remote_cache"]["hits"], 5);
  EXPECT_EQ(r["remote_cache"]["mode"], "read-only") << "a reader with the verification key uploads nothing";
  EXPECT_EQ(r["remote_cache"]["signatures"], "verify");
  const std::string err = r.value("_stderr", "");
  EXPECT_NE(err.find("1 cache entry refused, the stage ran instead: 1 unsigned (remote)"), std::string::npos) << err;
  ASSERT_EQ(r["cache_rejections"].size(), 1u);
  EXPECT_EQ(r["cache_rejections"][0]["stage"], "package");
  EXPECT_EQ(server.access_log().substr(puts_before.size()).find("PUT "), std::string::npos);
  // The writer, whose key verifies too, refuses the forgery and replaces it.
  Project w;
  a.clone_to(w.root());
  json rewrite = w.build({}, 0, env_with(server.url(), "WINML_MAKE_REMOTE_CACHE_SIGNING_KEY", key));
  traces.add(rewrite);
  EXPECT_EQ(rewrite["cache_rejections"].size(), 1u) << rewrite.dump();
  EXPECT_EQ(rewrite["remote_cache"]["uploads"], 1);
  Project c;
  a.clone_to(c.root());
  json again = c.build({}, 0, env_with(server.url(), "WINML_MAKE_REMOTE_CACHE_VERIFY_KEY", key));
  traces.add(again);
  EXPECT_EQ(again["remote_cache"]["hits"], 6) << again.dump();
  EXPECT_EQ(test::artifacts(a.root() / "build"), test::artifacts(c.root() / "build"));

  traces.dirs = {a.root(), a.cache_dir(), b.root(), b.cache_dir(), w.root(), w.cache_dir(), server.root()};
  traces.expect_absent(secret);
}

TEST(SignedEntries, AnEd25519WriterSignsReadersVerifyWithThePublicKeyAndRefuseOtherSignatures) {
  REQUIRE_NGINX();
  NginxServer server;
  test::TempDir keys;
  const fs::path key = keys / "cache.pem", pub = keys / "cache.pub", other = keys / "other.pem",
                 other_pub = keys / "other.pub";
  openssl({"genpkey", "-algorithm", "ed25519", "-out", key.string()});
  openssl({"pkey", "-in", key.string(), "-pubout", "-out", pub.string()});
  openssl({"genpkey", "-algorithm", "ed25519", "-out", other.string()});
  openssl({"pkey", "-in", other.string(), "-pubout", "-out", other_pub.string()});
  Traces traces;

  Project a;
  a.write_small_project();
  json first = a.build({}, 0, env_with(server.url(), "WINML_MAKE_REMOTE_CACHE_SIGNING_KEY", key));
  traces.add(first);
  EXPECT_EQ(first["remote_cache"]["uploads"], 6) << first.dump();

  Project b;
  a.clone_to(b.root());
  json r = b.build({}, 0, env_with(server.url(), "WINML_MAKE_REMOTE_CACHE_VERIFY_KEY", pub));
  traces.add(r);
  EXPECT_EQ(r["remote_cache"]["hits"], 6) << r.dump();
  EXPECT_TRUE(r["cache_rejections"].empty());
  EXPECT_EQ(test::artifacts(a.root() / "build"), test::artifacts(b.root() / "build"));

  // A signed entry altered after signing: its signature no longer verifies.
  ServerEntries entries(server);
  const store::Digest quantize = test::stage_key(first, "net", "quantize");
  auto e = entries.read(quantize);
  ASSERT_TRUE(e && e->signature);
  store::ActionEntry altered = e->entry;
  altered.elapsed_seconds += 1;
  std::vector<std::string> shas;
  for (const auto& blob : e->blobs) shas.push_back(blob.sha256);
  // The altered record followed by the genuine signature line, as a second
  // stdout_raw field (the last one given wins, as libprotobuf parses).
  std::string signature_hex;
  for (unsigned char c : e->signature->bytes)
    signature_hex += "0123456789abcdef"[c >> 4], signature_hex += "0123456789abcdef"[c & 15];
  std::string raw = store::entry_text(altered);
  store::RecordWriter line;
  line.field("S").field(e->signature->scheme).field(signature_hex);
  line.finish(raw);
  remote::wire::Writer stdout_raw;
  stdout_raw.bytes(5, raw);
  entries.write_raw(quantize, remote::encode_action(altered, shas) + stdout_raw.data());
  auto tampered = entries.read(quantize);
  ASSERT_TRUE(tampered && tampered->signature) << "the test's forgery does not decode";
  Project c;
  a.clone_to(c.root());
  json refused = c.build({}, 0, env_with(server.url(), "WINML_MAKE_REMOTE_CACHE_VERIFY_KEY", pub));
  traces.add(refused);
  EXPECT_NE(refused.value("_stderr", "").find("1 bad signature (remote)"), std::string::npos) << refused.dump();
  EXPECT_EQ(refused.value("_stderr", "").find("every entry"), std::string::npos) << "one entry altered is not a key problem";
  EXPECT_EQ(test::artifacts(a.root() / "build"), test::artifacts(c.root() / "build"));

  // A reader trusting another key refuses every entry, and builds the same bytes.
  Project d;
  a.clone_to(d.root());
  json stranger = d.build({}, 0, env_with(server.url(), "WINML_MAKE_REMOTE_CACHE_VERIFY_KEY", other_pub));
  traces.add(stranger);
  EXPECT_EQ(stranger["cache_rejections"].size(), 6u) << stranger.dump();
  EXPECT_EQ(stranger["remote_cache"]["hits"], 0);
  // Every entry refused: the likeliest cause, this reader's key, comes before the count.
  const std::string warned = stranger.value("_stderr", "");
  const auto cause = warned.find("warning: every entry the remote cache had (6) failed its signature check with this "
                                 "build's key, WINML_MAKE_REMOTE_CACHE_VERIFY_KEY (" + other_pub.string() +
                                 "): most likely it is not the key the cache's entries are signed with");
  EXPECT_NE(cause, std::string::npos) << warned;
  EXPECT_LT(cause, warned.find("6 cache entries refused")) << warned;
  EXPECT_EQ(test::artifacts(a.root() / "build"), test::artifacts(d.root() / "build"));

  traces.dirs = {a.root(), a.cache_dir(), b.root(), b.cache_dir(), server.root()};
  traces.expect_absent(pem_body(key));
}

TEST(SignedEntries, ABadKeyFileIsAnInputErrorNamingTheFileNotQuotingIt) {
  REQUIRE_NGINX();
  NginxServer server;
  test::TempDir keys;
  const fs::path key = keys / "short.secret";
  test::write_text(key, "tooshort-secret");
  Project a;
  a.write_small_project();
  auto r = a.run({}, env_with(server.url(), "WINML_MAKE_REMOTE_CACHE_SIGNING_KEY", key));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(key.string() + ": an HMAC secret needs at least 32 bytes"), std::string::npos) << r.err;
  EXPECT_EQ((r.out + r.err).find("tooshort-secret"), std::string::npos);
  EXPECT_FALSE(fs::exists(a.out("net", "model.onnx"))) << "a build that cannot verify must not start";
}

// A public key cannot sign: given as the signing key it stops the build
// before anything is uploaded (it once sent every entry unsigned, over the
// signed entries of the real key, and reported "sign and verify").
TEST(SignedEntries, APublicKeyAsTheSigningKeyStopsTheBuildBeforeAnyUpload) {
  REQUIRE_NGINX();
  NginxServer server;
  test::TempDir keys;
  const fs::path key = keys / "cache.pem", pub = keys / "cache.pub";
  openssl({"genpkey", "-algorithm", "ed25519", "-out", key.string()});
  openssl({"pkey", "-in", key.string(), "-pubout", "-out", pub.string()});
  Project a;
  a.write_small_project();
  auto r = a.run({}, env_with(server.url(), "WINML_MAKE_REMOTE_CACHE_SIGNING_KEY", pub));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(pub.string() + ": a public key, which cannot sign"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("WINML_MAKE_REMOTE_CACHE_VERIFY_KEY"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(a.out("net", "model.onnx"))) << "a build that cannot sign must not start";
  EXPECT_EQ(server.access_log().find("PUT"), std::string::npos) << server.access_log();
  for (const char* kind : {"ac", "cas"})
    if (fs::exists(server.root() / kind)) EXPECT_TRUE(fs::is_empty(server.root() / kind)) << kind;
}

// The shared cache's pieces that need no server: action entries on the wire,
// settings from the environment, SHA-256, and the libraries loaded on demand.
#include <gtest/gtest.h>
#include <stdlib.h>


#include "base/error.h"
#include "base/shared_library.h"
#include "remote/action_message.h"
#include "remote/http_client.h"
#include "remote/settings.h"
#include "remote/sha256.h"

using namespace winml;

namespace {

store::ActionEntry sample_entry() {
  store::ActionEntry e;
  e.key = store::digest_of("some key");
  e.implementation = "optimize";
  e.elapsed_seconds = 1.5;
  e.metrics_json = R"({"nodes":12})";
  e.outputs = {{"optimized.onnx", store::digest_of("model bytes"), 11},
               {"optimized.onnx.data", store::digest_of("weights"), 7}};
  return e;
}

std::vector<std::string> sample_shas() { return {remote::sha256_hex("model bytes"), remote::sha256_hex("weights")}; }

// A protobuf field appended the way a server that re-serializes would add
// its own metadata: field 9 (execution_metadata), length-delimited, holding
// field 1 (worker) = "bazel-remote".
std::string with_server_metadata(std::string bytes) {
  const std::string worker = "bazel-remote";
  std::string inner = std::string(1, static_cast<char>((1 << 3) | 2)) + static_cast<char>(worker.size()) + worker;
  bytes += static_cast<char>((9 << 3) | 2);
  bytes += static_cast<char>(inner.size());
  return bytes + inner;
}

struct ScopedEnv {
  explicit ScopedEnv(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {
    for (const auto& [k, v] : vars_) ::setenv(k.c_str(), v.c_str(), 1);
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : vars_) ::unsetenv(k.c_str());
  }
  std::map<std::string, std::string> vars_;
};

}  // namespace

TEST(Sha256, MatchesTheStandardTestVectors) {
  EXPECT_EQ(remote::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(remote::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(ActionMessage, RoundTripsThroughTheWireAndSurvivesFieldsAServerAdds) {
  const auto entry = sample_entry();
  const std::string bytes = with_server_metadata(remote::encode_action(entry, sample_shas()));
  auto back = remote::decode_action(bytes, entry.key);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->entry.outputs, entry.outputs);
  EXPECT_EQ(back->entry.metrics_json, entry.metrics_json);
  EXPECT_EQ(back->entry.implementation, "optimize");
  ASSERT_EQ(back->blobs.size(), 2u);
  EXPECT_EQ(back->blobs[0].sha256, remote::sha256_hex("model bytes"));
  EXPECT_EQ(back->blobs[1].size, 7u);
}

TEST(ActionMessage, RefusesGarbageAnotherKeyBadDigestsAndEscapingNames) {
  const auto entry = sample_entry();
  const std::string bytes = remote::encode_action(entry, sample_shas());
  EXPECT_FALSE(remote::decode_action("not a protobuf \xff\xff\xff", entry.key));
  EXPECT_FALSE(remote::decode_action(bytes.substr(0, bytes.size() / 2), entry.key));
  EXPECT_FALSE(remote::decode_action(bytes, store::digest_of("another key")));
  auto shas = sample_shas();
  EXPECT_TRUE(remote::decode_action(remote::encode_action(entry, shas), entry.key));
  // A digest that is not SHA-256 hex.
  shas[0] = "ABC";
  EXPECT_FALSE(remote::decode_action(remote::encode_action(entry, shas), entry.key));
  // An output name that would climb out of the model folder.
  auto escaping = entry;
  escaping.outputs[0].name = "../../etc/passwd";
  EXPECT_FALSE(remote::decode_action(remote::encode_action(escaping, sample_shas()), entry.key));
}

TEST(ActionMessage, NamesDependOnTheNamespaceAndAreSha256Hex) {
  const auto key = store::digest_of("k");
  EXPECT_TRUE(remote::is_sha256_hex(remote::action_name("", key)));
  EXPECT_NE(remote::action_name("", key), remote::action_name("team-a", key));
  EXPECT_EQ(remote::action_name("team-a", key), remote::action_name("team-a", key));
}

TEST(RemoteSettings, UrlPrecedenceModeAndTimeout) {
  EXPECT_FALSE(remote::resolve_remote_settings("", {}));
  {
    ScopedEnv env(std::map<std::string, std::string>{{"WINML_MAKE_REMOTE_CACHE", "http://127.0.0.1:1/env/"}});
    EXPECT_EQ(remote::resolve_remote_settings("", {"http://127.0.0.1:1/config"})->url, "http://127.0.0.1:1/env");
    EXPECT_EQ(remote::resolve_remote_settings("https://cache.example/flag", {})->url, "https://cache.example/flag");
  }
  EXPECT_EQ(remote::resolve_remote_settings("", {"http://127.0.0.1:1/config"})->url, "http://127.0.0.1:1/config");
  {
    ScopedEnv env(std::map<std::string, std::string>{{"WINML_MAKE_REMOTE_CACHE_MODE", "read-only"},
                                                     {"WINML_MAKE_REMOTE_CACHE_TIMEOUT", "3"}});
    auto s = remote::resolve_remote_settings("http://localhost:8080", {});
    EXPECT_EQ(s->mode, remote::RemoteMode::kReadOnly);
    EXPECT_EQ(s->http.stall_seconds, 3);
  }
  {
    ScopedEnv env(std::map<std::string, std::string>{{"WINML_MAKE_REMOTE_CACHE_MODE", "write-everything"}});
    EXPECT_THROW(remote::resolve_remote_settings("http://localhost:8080", {}), InputError);
  }
  EXPECT_THROW(remote::resolve_remote_settings("ftp://cache.example", {}), InputError);
}

TEST(RemoteSettings, TransferLimitFromTheVariableOverTheConfigAndSigningKeys) {
  EXPECT_EQ(remote::resolve_remote_settings("http://localhost:8080", {})->http.transfer_seconds, 0);
  EXPECT_EQ(remote::resolve_remote_settings("http://localhost:8080", {"", 120})->http.transfer_seconds, 120);
  {
    ScopedEnv env(std::map<std::string, std::string>{{"WINML_MAKE_REMOTE_CACHE_TRANSFER_TIMEOUT", "7"}});
    EXPECT_EQ(remote::resolve_remote_settings("http://localhost:8080", {"", 120})->http.transfer_seconds, 7);
  }
  {
    ScopedEnv env(std::map<std::string, std::string>{{"WINML_MAKE_REMOTE_CACHE_TRANSFER_TIMEOUT", "soon"}});
    EXPECT_THROW(remote::resolve_remote_settings("http://localhost:8080", {}), InputError);
  }
  {
    ScopedEnv env(std::map<std::string, std::string>{{"WINML_MAKE_REMOTE_CACHE_VERIFY_KEY", "/keys/cache.pub"}});
    auto s = remote::resolve_remote_settings("http://localhost:8080", {});
    EXPECT_EQ(s->mode, remote::RemoteMode::kReadOnly) << "a reader's uploads would carry no signature";
    EXPECT_EQ(s->verify_key, "/keys/cache.pub");
  }
  {
    ScopedEnv env(std::map<std::string, std::string>{{"WINML_MAKE_REMOTE_CACHE_VERIFY_KEY", "/keys/cache.pub"},
                                                     {"WINML_MAKE_REMOTE_CACHE_SIGNING_KEY", "/keys/cache.pem"}});
    EXPECT_THROW(remote::resolve_remote_settings("http://localhost:8080", {}), InputError);
  }
}

TEST(RemoteSettings, CredentialsNeverGoOverPlainHttpExceptToLoopback) {
  try {
    remote::resolve_remote_settings("http://ci:s3cret@cache.example:8080/c", {});
    FAIL() << "credentials over plain http were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("plain http"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("s3cret"), std::string::npos) << "the message shows the password";
  }
  {
    ScopedEnv env(std::map<std::string, std::string>{{"WINML_MAKE_REMOTE_CACHE_TOKEN", "t0ken"}});
    EXPECT_THROW(remote::resolve_remote_settings("http://cache.example/c", {}), InputError);
    EXPECT_TRUE(remote::resolve_remote_settings("https://cache.example/c", {}));
    EXPECT_TRUE(remote::resolve_remote_settings("http://127.0.0.1:9090/c", {}));
  }
  EXPECT_TRUE(remote::resolve_remote_settings("http://ci:s3cret@localhost:9090/c", {}));
  EXPECT_FALSE(remote::resolve_remote_settings("http://cache.example/c", {})->http.use_netrc);
  EXPECT_TRUE(remote::resolve_remote_settings("https://cache.example/c", {})->http.use_netrc);
}

TEST(RemoteSettings, UrlsAreShownWithoutTheirCredentials) {
  EXPECT_EQ(remote::redact_url("https://ci:s3cret@cache.example:8443/c"), "https://cache.example:8443/c");
  EXPECT_EQ(remote::redact_url("http://127.0.0.1:80/c"), "http://127.0.0.1:80/c");
  EXPECT_TRUE(remote::is_loopback_url("http://u:p@[::1]:80/c"));
  EXPECT_FALSE(remote::is_loopback_url("http://127.0.0.1.example.com/c"));
}

TEST(SharedLibrary, NamesEverySonameTriedWhenNoneLoads) {
  try {
    SharedLibrary lib({"libwinml-absent.so.7", "libwinml-absent.so.6"});
    FAIL() << "loaded a library that does not exist";
  } catch (const BuildError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("libwinml-absent.so.7"), std::string::npos) << what;
    EXPECT_NE(what.find("libwinml-absent.so.6"), std::string::npos) << what;
  }
}

TEST(SharedLibrary, LoadsLibcurlAndLibcryptoOnDemand) {
  std::string why;
  ASSERT_TRUE(remote::http_libraries_available(&why)) << why;
  // Known answer: SHA-256 of "abc" (FIPS 180-2), through the loaded libcrypto.
  EXPECT_EQ(remote::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}


// The shared cache's pieces: action entries on the wire, settings from the
// environment, SHA-256, the libraries loaded on demand, ~/.netrc, and the
// HTTP client itself against nginx (libcurl on POSIX, WinHTTP on Windows:
// the same results from both).
#include <gtest/gtest.h>

#include <atomic>

#include "base/error.h"
#include "base/shared_library.h"
#include "remote/action_message.h"
#include "remote/http_client.h"
#include "remote/netrc.h"
#include "remote/settings.h"
#include "remote/sha256.h"
#include "support/nginx_server.h"
#include "support/platform.h"
#include "support/temp_dir.h"

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
  explicit ScopedEnv(const std::map<std::string, std::string>& vars) {
    for (const auto& [k, v] : vars) env.set(k, v);
  }
  test::ScopedEnvironment env;
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
  // (On Windows: WinHTTP and BCrypt.)
  std::string why;
  ASSERT_TRUE(remote::http_libraries_available(&why)) << why;
  // Known answer: SHA-256 of "abc" (FIPS 180-2), through the loaded libcrypto.
  EXPECT_EQ(remote::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, LongInputsInPiecesAndFiles) {
  // FIPS 180-2's third vector: a million 'a's, fed in uneven pieces.
  remote::Sha256 h;
  const std::string piece(997, 'a');
  for (std::size_t left = 1000000; left > 0; left -= std::min(left, piece.size()))
    h.update(piece.data(), std::min(left, piece.size()));
  EXPECT_EQ(h.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  test::TempDir dir;
  test::write_text(dir / "abc", "abc");
  EXPECT_EQ(remote::sha256_file(dir / "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_THROW(remote::sha256_file(dir / "absent"), InputError);
}

TEST(Netrc, TheMachineEntryElseTheDefaultAsCurlReadsThem) {
  const std::string netrc =
      "machine other.example login o password op\n"
      "macdef init\ncd /pub\nmachine cache.example\n\n"
      "machine cache.example\n  login ci\n  password \"s3 cret\"\n"
      "default login anonymous password guest\n";
  auto ci = remote::netrc_login(netrc, "cache.example");
  ASSERT_TRUE(ci);
  EXPECT_EQ(ci->login, "ci");
  EXPECT_EQ(ci->password, "s3 cret");
  EXPECT_EQ(remote::netrc_login(netrc, "other.example")->password, "op");
  EXPECT_EQ(remote::netrc_login(netrc, "elsewhere.example")->login, "anonymous");
  EXPECT_FALSE(remote::netrc_login("machine a login b password c\n", "z"));
  EXPECT_FALSE(remote::netrc_login("", "z"));
}

// The client against a real server: every result field as the shared cache
// reads it.
class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::NginxServer::available()) GTEST_SKIP() << "no nginx (scripts/install-deps.sh installs it)";
  }
};

TEST_F(HttpClientTest, PutHeadGetAndMissesGiveTheStatusAndTheBytes) {
  test::NginxServer server;
  test::TempDir dir;
  std::string body;
  for (int i = 0; body.size() < (3u << 20) + 17; ++i) body += "line " + std::to_string(i) + "\n";
  test::write_text(dir / "blob", body);
  remote::HttpClient http(remote::HttpOptions{});

  auto put = http.put_file(server.url() + "/cas/blob", dir / "blob");
  EXPECT_TRUE(put.ok()) << put.describe();
  EXPECT_EQ(put.status, 201);
  EXPECT_EQ(put.bytes, body.size());
  EXPECT_EQ(test::read_text(server.root() / "cas" / "blob"), body);

  auto head = http.head(server.url() + "/cas/blob");
  EXPECT_EQ(head.status, 200) << head.describe();
  EXPECT_EQ(head.bytes, 0u);

  std::string got;
  std::size_t chunks = 0;
  auto get = http.get(server.url() + "/cas/blob", [&](const char* data, std::size_t n) {
    got.append(data, n);
    ++chunks;
    return true;
  });
  EXPECT_EQ(get.status, 200) << get.describe();
  EXPECT_EQ(get.bytes, body.size());
  EXPECT_EQ(got, body);
  EXPECT_GT(chunks, 1u) << "the body was not streamed";

  // Bytes, replacing what was there (204: nginx's answer to a PUT over a file).
  auto again = http.put_bytes(server.url() + "/cas/blob", "small");
  EXPECT_TRUE(again.ok()) << again.describe();
  EXPECT_EQ(again.bytes, 5u);
  EXPECT_EQ(test::read_text(server.root() / "cas" / "blob"), "small");
  test::write_text(dir / "empty", "");
  auto empty = http.put_file(server.url() + "/cas/empty", dir / "empty");
  EXPECT_TRUE(empty.ok()) << empty.describe();
  EXPECT_EQ(empty.bytes, 0u);

  // A miss: its error page never reaches the sink.
  bool called = false;
  auto miss = http.get(server.url() + "/ac/absent", [&](const char*, std::size_t) { return called = true; });
  EXPECT_EQ(miss.status, 404);
  EXPECT_TRUE(miss.miss());
  EXPECT_FALSE(miss.ok());
  EXPECT_FALSE(called);
  EXPECT_EQ(miss.bytes, 0u);
  EXPECT_EQ(http.head(server.url() + "/ac/absent").status, 404);
  EXPECT_EQ(http.put_file(server.url() + "/cas/x", dir / "absent").status, 0);
}

TEST_F(HttpClientTest, AClosedPortIsNoAnswerAndARefusingSinkStopsTheDownload) {
  test::TempDir dir;
  test::write_text(dir / "blob", std::string(4u << 20, 'x'));
  std::string closed_url;
  {
    test::NginxServer server;
    remote::HttpClient http(remote::HttpOptions{});
    ASSERT_TRUE(http.put_file(server.url() + "/cas/blob", dir / "blob").ok());
    std::size_t seen = 0;
    auto refused = http.get(server.url() + "/cas/blob", [&](const char*, std::size_t n) {
      seen += n;
      return false;
    });
    EXPECT_EQ(refused.status, 0);
    EXPECT_EQ(refused.error, "download refused");
    EXPECT_TRUE(refused.transient());
    EXPECT_LT(refused.bytes, 4u << 20);
    // The client is still usable after a transfer it cut off.
    EXPECT_EQ(http.head(server.url() + "/cas/blob").status, 200);
    closed_url = server.url();
  }
  remote::HttpClient http(remote::HttpOptions{});
  const auto r = http.head(closed_url + "/cas/blob");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.transient());
  EXPECT_FALSE(r.error.empty());
  EXPECT_EQ(r.describe(), r.error);
}

TEST_F(HttpClientTest, TheAbortFlagStopsATransferMidway) {
  test::NginxServer server;
  test::TempDir dir;
  constexpr std::size_t kSize = 64u << 20;
  {
    std::string big(kSize, 'y');
    test::write_text(dir / "big", big);
  }
  std::atomic<bool> abort{false};
  remote::HttpOptions options;
  options.abort = &abort;
  remote::HttpClient http(options);
  ASSERT_TRUE(http.put_file(server.url() + "/cas/big", dir / "big").ok());
  auto r = http.get(server.url() + "/cas/big", [&](const char*, std::size_t) {
    abort = true;  // Ctrl-C, as the first bytes arrive
    return true;
  });
  EXPECT_EQ(r.status, 0);
  EXPECT_FALSE(r.error.empty());
  EXPECT_GT(r.bytes, 0u);
  EXPECT_LT(r.bytes, kSize);
  // Nothing starts while the flag is set.
  EXPECT_EQ(http.head(server.url() + "/cas/big").status, 0);
}

TEST_F(HttpClientTest, BasicAuthFromTheUrlAndABearerToken) {
  test::NginxServer server({.basic_auth_for_writes = true});
  const std::string authority = server.url().substr(std::string("http://").size());
  remote::HttpClient http(remote::HttpOptions{});
  EXPECT_EQ(http.put_bytes(server.url() + "/ac/a", "entry").status, 401);
  EXPECT_EQ(http.put_bytes("http://ci:wrong@" + authority + "/ac/a", "entry").status, 401);
  // Escaped in the URL as curl takes it: "s3cret" with its 'c' as %63.
  auto ok = http.put_bytes("http://ci:s3%63ret@" + authority + "/ac/a", "entry");
  EXPECT_TRUE(ok.ok()) << ok.describe();
  EXPECT_EQ(http.head(server.url() + "/ac/a").status, 200) << "anonymous reads";
  remote::HttpOptions with_token;
  with_token.bearer_token = "t0ken";  // sent instead of the URL's user: nginx refuses it
  remote::HttpClient bearer(with_token);
  EXPECT_EQ(bearer.put_bytes("http://ci:s3cret@" + authority + "/ac/a", "entry").status, 401);
}


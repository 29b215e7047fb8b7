// The shared cache through the real CLI against a real server: Debian's
// nginx with WebDAV PUT on a free 127.0.0.1 port (tests/support/nginx_server).
#include <gtest/gtest.h>

#include <chrono>
#include <regex>

#include "support/project.h"
#include "remote/sha256.h"
#include "remote/stalled_server.h"
#include "support/nginx_server.h"

using namespace winml;
using test::NginxOptions;
using test::NginxServer;
using test::Project;
namespace fs = std::filesystem;

namespace {

#define REQUIRE_NGINX() \
  if (!NginxServer::available()) GTEST_FAIL() << "nginx is not installed (scripts/install-deps.sh installs it)"

std::map<std::string, std::string> remote_env(const std::string& url, std::map<std::string, std::string> more = {}) {
  more["WINML_MAKE_REMOTE_CACHE"] = url;
  return more;
}

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->is_regular_file()) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

int puts_in(const std::string& access_log) { return count_of(access_log, "PUT "); }

// Every blob on the server is named by the SHA-256 of its bytes.
void expect_server_blobs_intact(const NginxServer& server) {
  for (const auto& f : files_in(server.root() / "cas"))
    EXPECT_EQ(remote::sha256_file(f), f.filename().string()) << "server blob " << f << " is corrupt";
}

}  // namespace

TEST(RemoteCache, ASecondCloneWithAnEmptyLocalCacheRestoresEveryStageFromTheServer) {
  REQUIRE_NGINX();
  NginxServer server;
  Project a, b;
  a.write_small_project();
  auto first = a.build({}, 0, remote_env(server.url()));
  EXPECT_EQ(test::stages_with(first, "net", "completed").size(), 6u) << first.dump();
  EXPECT_EQ(first["remote_cache"]["uploads"], 6) << first.dump();
  EXPECT_EQ(first["remote_cache"]["misses"], 6);
  EXPECT_EQ(files_in(server.root() / "ac").size(), 6u);
  expect_server_blobs_intact(server);

  a.clone_to(b.root());  // b keeps its own, empty, local cache
  auto second = b.build({}, 0, remote_env(server.url()));
  EXPECT_EQ(test::stages_with(second, "net", "cached").size(), 6u) << second.dump();
  EXPECT_EQ(second["remote_cache"]["hits"], 6);
  EXPECT_EQ(second["remote_cache"]["uploads"], 0) << "restores are not uploaded again";
  for (const auto& st : second["models"][0]["stages"]) EXPECT_EQ(st["source"], "remote") << st.dump();
  EXPECT_EQ(test::artifacts(a.root() / "build"), test::artifacts(b.root() / "build"));

  // The remote hit filled b's local cache: with the server gone, a third
  // clone on b's cache still restores everything.
  server.stop();
  Project c;
  a.clone_to(c.root());
  c.use_cache(b.cache_dir());
  auto third = c.build();
  EXPECT_EQ(test::stages_with(third, "net", "cached").size(), 6u) << third.dump();
}

TEST(RemoteCache, ATamperedOrDeletedBlobOnTheServerIsRebuiltAndUploadedAgain) {
  REQUIRE_NGINX();
  NginxServer server;
  Project a;
  a.write_small_project();
  a.build({}, 0, remote_env(server.url()));
  const std::string quantized = remote::sha256_file(a.out("net", "quantized.onnx"));
  const std::string compiled = remote::sha256_file(a.out("net", "compiled.onnx"));
  const fs::path tampered = server.root() / "cas" / quantized;
  ASSERT_TRUE(fs::exists(tampered));
  std::string bytes = test::read_text(tampered);
  bytes[bytes.size() / 2] ^= 0x20;
  test::write_text(tampered, bytes);
  fs::remove(server.root() / "cas" / compiled);

  Project b;
  a.clone_to(b.root());
  auto r = b.build({}, 0, remote_env(server.url()));
  const auto st = test::statuses(r);
  EXPECT_EQ(st.at("net/quantize"), "completed") << r.dump();
  EXPECT_EQ(st.at("net/compile"), "completed") << r.dump();
  EXPECT_EQ(st.at("net/optimize"), "cached");
  EXPECT_EQ(test::artifacts(a.root() / "build"), test::artifacts(b.root() / "build"));
  // Both were uploaded again: the server is whole, and a third clone restores everything.
  expect_server_blobs_intact(server);
  EXPECT_TRUE(fs::exists(server.root() / "cas" / compiled));
  Project c;
  a.clone_to(c.root());
  auto third = c.build({}, 0, remote_env(server.url()));
  EXPECT_EQ(test::stages_with(third, "net", "cached").size(), 6u) << third.dump();
}

TEST(RemoteCache, ReadOnlyModeWritesNothing) {
  REQUIRE_NGINX();
  NginxServer server;
  Project a;
  a.write_small_project();
  auto r = a.build({}, 0, remote_env(server.url(), {{"WINML_MAKE_REMOTE_CACHE_MODE", "read-only"}}));
  EXPECT_EQ(test::stages_with(r, "net", "completed").size(), 6u);
  EXPECT_EQ(r["remote_cache"]["mode"], "read-only");
  EXPECT_EQ(puts_in(server.access_log()), 0) << server.access_log();
  EXPECT_TRUE(files_in(server.root() / "cas").empty());
  EXPECT_TRUE(files_in(server.root() / "ac").empty());
}

TEST(RemoteCache, NoRemoteCacheOverridesTheVariableAndTheFile) {
  REQUIRE_NGINX();
  NginxServer server;
  Project a;
  a.write_small_project("[build]\nremote_cache = \"" + server.url() + "\"\n");
  auto r = a.build({"--no-remote-cache"}, 0, remote_env(server.url()));
  EXPECT_EQ(test::stages_with(r, "net", "completed").size(), 6u);
  EXPECT_FALSE(r.contains("remote_cache")) << r.dump();
  EXPECT_EQ(server.access_log(), "");
}

TEST(RemoteCache, CachedOnlyFailsNamingTheStageThatWouldRun) {
  REQUIRE_NGINX();
  NginxServer server;
  Project a;
  a.write_small_project();
  auto r = a.run({"--cached-only"}, remote_env(server.url()));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("net/export: not in the cache, and --cached-only forbids running it"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(a.out("net", "model.onnx")));
}

// What a user gets from a server that refuses or does not answer: the build
// succeeds, with exactly one warning.
struct ServerTrouble {
  std::string name;
  NginxOptions options;
  std::string url_credentials;  // "user:password@" or ""
  std::string expect_in_warning;
};

class RemoteCacheTrouble : public ::testing::TestWithParam<ServerTrouble> {};

TEST_P(RemoteCacheTrouble, TheBuildSucceedsWithOneWarning) {
  REQUIRE_NGINX();
  const auto& trouble = GetParam();
  NginxServer server(trouble.options);
  std::string url = server.url();
  url.insert(url.find("//") + 2, trouble.url_credentials);
  Project a;
  a.write_small_project();
  auto r = a.run({}, remote_env(url));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(count_of(r.out + r.err, "winml-make: warning: remote cache"), 1) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find(trouble.expect_in_warning), std::string::npos) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("wrongpass"), std::string::npos) << "a password was printed";
  EXPECT_TRUE(fs::exists(a.out("net", "model.onnx")));
}

INSTANTIATE_TEST_SUITE_P(
    Server, RemoteCacheTrouble,
    ::testing::Values(ServerTrouble{"WrongCredentials", {.basic_auth_for_writes = true}, "ci:wrongpass@", "HTTP 401"},
                      ServerTrouble{"BodyTooLarge", {.client_max_body_size = "1k"}, "", "HTTP 413"}),
    [](const auto& info) { return info.param.name; });

TEST(RemoteCache, AClosedPortOrAStalledServerCostsOneWarningAndBoundedTime) {
  Project a;
  a.write_small_project();
  int closed_port;
  {
    test::StalledServer probe;  // a port that was free a moment ago
    closed_port = probe.port();
  }
  auto r = a.run({}, remote_env("http://127.0.0.1:" + std::to_string(closed_port) + "/cache"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(count_of(r.out + r.err, "winml-make: warning: remote cache"), 1) << r.out << r.err;

  test::StalledServer stalled;
  Project b;
  b.write_small_project();
  const auto start = std::chrono::steady_clock::now();
  r = b.run({}, remote_env("http://127.0.0.1:" + std::to_string(stalled.port()) + "/cache",
                           {{"WINML_MAKE_REMOTE_CACHE_TIMEOUT", "1"}}));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(count_of(r.out + r.err, "winml-make: warning: remote cache"), 1) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("switched off"), std::string::npos) << r.out << r.err;
  EXPECT_LT(seconds, 30) << "a stalled server held the build";
}

TEST(RemoteCache, AnUploadKilledHalfwayLeavesNothingTheNextBuildTrusts) {
  REQUIRE_NGINX();
  NginxServer server;
  // A model big enough that its uploads take a while on loopback.
  Project a;
  a.write_model("net.onnx", 3, 2048, 4096);  // 32 MiB of weights
  a.write_config("[model]\nsource = \"net.onnx\"\n[quantize]\nenabled = false\n");
  test::Background build({}, a.root(),
                         {{"WINML_MAKE_CACHE_DIR", a.cache_dir().string()}, {"WINML_MAKE_REMOTE_CACHE", server.url()}});
  // Kill as soon as a blob upload is under way (nginx buffers a PUT body in
  // its client body temp folder), or at the latest when one has landed.
  const bool caught =
      test::wait_until([&] { return server.upload_in_progress() || !files_in(server.root() / "cas").empty(); }, 120);
  build.kill_group();
  const auto killed = build.wait();
  ASSERT_TRUE(caught) << "no upload seen: " << killed.out << killed.err;
  // Nothing on the server may be trusted that is not whole.
  expect_server_blobs_intact(server);
  Project b;
  a.clone_to(b.root());
  b.build({}, 0, remote_env(server.url()));
  Project clean;
  a.clone_to(clean.root());
  clean.build();
  EXPECT_EQ(test::artifacts(clean.root() / "build"), test::artifacts(b.root() / "build"));
}

TEST(RemoteCache, TwoShardsAndAnAssembleJobGiveTheBytesOfOneBuild) {
  REQUIRE_NGINX();
  NginxServer server;
  Project a;
  std::string config;
  for (int i = 0; i < 4; ++i) {
    const std::string name = "m" + std::to_string(i);
    a.write_model(name + ".onnx", static_cast<std::uint32_t>(10 + i));
    config += "[[model]]\nname = \"" + name + "\"\nsource = \"" + name + ".onnx\"\n";
  }
  a.write_config(config);
  Project whole;
  a.clone_to(whole.root());
  whole.build();

  std::set<std::string> built;
  for (const char* shard : {"1/2", "2/2"}) {
    Project job;
    a.clone_to(job.root());
    auto r = job.build({"--shard", shard}, 0, remote_env(server.url()));
    for (const auto& t : r["models"]) EXPECT_TRUE(built.insert(t["name"].get<std::string>()).second) << shard;
  }
  EXPECT_EQ(built.size(), 4u);

  Project assemble;
  a.clone_to(assemble.root());
  const auto puts_before = puts_in(server.access_log());
  auto r =
      assemble.build({"--cached-only"}, 0, remote_env(server.url(), {{"WINML_MAKE_REMOTE_CACHE_MODE", "read-only"}}));
  EXPECT_EQ(r["summary"]["cached"], 24) << r.dump();
  EXPECT_EQ(puts_in(server.access_log()), puts_before);
  EXPECT_EQ(test::artifacts(whole.root() / "build"), test::artifacts(assemble.root() / "build"));
}

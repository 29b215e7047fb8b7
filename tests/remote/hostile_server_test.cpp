// A cache server that serves forged entries can neither break a build nor
// spread what it forged. Each entry here is written straight into nginx's
// files by the test, records and checksums consistent; then a second clone
// with an empty local cache builds against the server. The build exits 0,
// its artifacts equal a clean build's, the refusal shows in one warning and
// in --json, and nothing forged reaches the local cache or the server.
#include <gtest/gtest.h>
#include <sys/statvfs.h>

#include <chrono>
#include <functional>

#include "support/project.h"
#include "remote/server_entries.h"
#include "remote/sha256.h"
#include "remote/trickling_server.h"
#include "store/cache.h"
#include "support/nginx_server.h"

using namespace winml;
using test::NginxServer;
using test::Project;
using test::ServerEntries;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

#define REQUIRE_NGINX() \
  if (!NginxServer::available()) GTEST_FAIL() << "nginx is not installed (scripts/install-deps.sh installs it)"

// Another model's export, byte for byte: what a forger would slip in.
std::string other_model_bytes() {
  Project other;
  other.write_model("other.onnx", 77);
  return test::read_text(other.root() / "other.onnx");
}

// A project built once against the server: the genuine entries are there.
struct Published {
  NginxServer server;
  Project a;
  json report;
  Published() {
    a.write_small_project();
    report = a.build({}, 0, test::remote_env(server.url()));
  }
  store::Digest key(const std::string& stage) const { return test::stage_key(report, "net", stage); }
};

// Every entry the server and a local cache hold is one of the clean build's
// (a forged entry was replaced by the honest upload, or refused and left).
void expect_nothing_forged_spread(const Published& p, const Project& b, const std::set<std::string>& forged_keys = {}) {
  ServerEntries server(p.server);
  std::set<fs::path> genuine_files;
  store::LocalCache local(b.cache_dir());
  for (const char* stage : test::kCacheStages) {
    const store::Digest key = p.key(stage);
    const auto clean = test::stage_outputs(p.report, "net", stage);
    genuine_files.insert(server.entry_file(key));
    if (auto e = server.read(key); e && !forged_keys.count(key.hex())) {
      std::map<std::string, std::string> held;
      for (const auto& o : e->entry.outputs) held[o.name] = o.digest.hex();
      EXPECT_EQ(held, clean) << "the server's " << stage << " entry is not the clean build's";
    }
    if (auto e = local.lookup(key)) {
      std::map<std::string, std::string> held;
      for (const auto& o : e->outputs) held[o.name] = o.digest.hex();
      EXPECT_EQ(held, clean) << "the local cache's " << stage << " entry is not the clean build's";
    }
  }
  for (const auto& f : server.entry_files())
    EXPECT_TRUE(genuine_files.count(f)) << "an entry under a key no clean build has: " << f;
  auto verify = b.run({"cache", "verify"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("all good"), std::string::npos) << verify.out;
}

// The build of a second clone against the forged server, checked as every
// case here checks it: exit 0, the clean build's bytes, one warning naming
// the reason, the refusal in --json.
json build_against_forgery(const Published& p, Project& b, const std::string& reason,
                           std::map<std::string, std::string> env = {}) {
  p.a.clone_to(b.root());
  env["WINML_MAKE_REMOTE_CACHE"] = p.server.url();
  json r = b.build({}, 0, env);
  EXPECT_EQ(test::artifacts(p.a.root() / "build"), test::artifacts(b.root() / "build"));
  const std::string err = r.value("_stderr", "");
  EXPECT_EQ(test::count_of(err, "winml-make: warning:"), 1) << err;
  EXPECT_NE(err.find("1 cache entry refused, the stage ran instead: 1 " + reason + " (remote)"), std::string::npos)
      << err;
  EXPECT_EQ(r["cache_rejections"].size(), 1u) << r.dump();
  if (!r["cache_rejections"].empty()) {
    EXPECT_EQ(r["cache_rejections"][0]["reason"], reason);
    EXPECT_EQ(r["cache_rejections"][0]["source"], "remote");
    EXPECT_EQ(r["cache_rejections"][0]["stage"], "export");
  }
  EXPECT_EQ(test::statuses(r).at("net/export"), "completed") << r.dump();
  EXPECT_FALSE(r["remote_cache"]["switched_off"].get<bool>()) << "the remote went off: " << err;
  return r;
}

// A forged export entry: the genuine one with its outputs changed by `forge`.
struct Forgery {
  std::string name;
  std::string reason;
  bool refused_before_download;
  std::function<void(ServerEntries&, store::ActionEntry&, std::vector<std::string>& sha256s)> forge;
};

void PrintTo(const Forgery& f, std::ostream* os) { *os << f.name; }

class ForgedExportEntry : public ::testing::TestWithParam<Forgery> {};

TEST_P(ForgedExportEntry, IsAMissTheBuildSucceedsAndNothingForgedSpreads) {
  REQUIRE_NGINX();
  const Forgery& f = GetParam();
  Published p;
  ServerEntries server(p.server);
  auto genuine = server.read(p.key("export"));
  ASSERT_TRUE(genuine);
  store::ActionEntry entry = genuine->entry;
  std::vector<std::string> shas;
  for (const auto& b : genuine->blobs) shas.push_back(b.sha256);
  const std::size_t genuine_count = shas.size();
  f.forge(server, entry, shas);
  server.write(entry, shas);

  Project b;
  const auto start = std::chrono::steady_clock::now();
  json r = build_against_forgery(p, b, f.reason);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20) << "a refused entry should cost a rebuild of one stage";
  if (f.refused_before_download)
    for (std::size_t i = genuine_count; i < shas.size(); ++i)
      EXPECT_FALSE(test::downloaded(p.server, shas[i])) << "downloaded a blob of an entry the rules refuse";
  // The other stages came from the server: the rebuilt export is the genuine one.
  EXPECT_EQ(test::stages_with(r, "net", "cached").size(), 5u) << r.dump();
  expect_nothing_forged_spread(p, b);
  // The local cache is whole: with the server gone, the build is up to date
  // and a fresh checkout restores from the local cache alone.
  p.server.stop();
  EXPECT_EQ(test::stages_with(b.build(), "net", "up-to-date").size(), 6u);
  fs::remove_all(b.root() / "build");
  EXPECT_EQ(test::stages_with(b.build(), "net", "cached").size(), 6u);
}

INSTANTIATE_TEST_SUITE_P(
    Server, ForgedExportEntry,
    ::testing::Values(
        Forgery{"TmpNamedExtraOutput", "outputs break the rules", true,
                [](ServerEntries& s, store::ActionEntry& e, std::vector<std::string>& shas) {
                  e.outputs.push_back(s.put_blob("x.winml-tmp.1", "junk", &shas.emplace_back()));
                }},
        Forgery{"ThreeHundredCharacterName", "outputs break the rules", true,
                [](ServerEntries& s, store::ActionEntry& e, std::vector<std::string>& shas) {
                  e.outputs.push_back(s.put_blob(std::string(300, 'x'), "junk", &shas.emplace_back()));
                }},
        Forgery{"DuplicatedOutputName", "outputs break the rules", true,
                [](ServerEntries& s, store::ActionEntry& e, std::vector<std::string>& shas) {
                  e.outputs.push_back(s.put_blob("export.onnx", other_model_bytes(), &shas.emplace_back()));
                }},
        Forgery{"HundredThousandOutputs", "outputs break the rules", true,
                [](ServerEntries& s, store::ActionEntry& e, std::vector<std::string>& shas) {
                  std::string sha;
                  const store::OutputFile one = s.put_blob("f", "x", &sha);
                  for (int i = 1; i < 100000; ++i) {
                    e.outputs.push_back({"f" + std::to_string(i), one.digest, one.size});
                    shas.push_back(sha);
                  }
                }},
        Forgery{"AFileTheArtifactDoesNotName", "outputs are not the stage's artifact", false,
                [](ServerEntries& s, store::ActionEntry& e, std::vector<std::string>& shas) {
                  e.outputs.push_back(s.put_blob("export.onnx.data", "not referenced", &shas.emplace_back()));
                }},
        Forgery{"ArtifactThatNamesAMissingSidecar", "outputs are not the stage's artifact", false,
                [](ServerEntries& s, store::ActionEntry& e, std::vector<std::string>& shas) {
                  // A model whose weights live in export.onnx.data, without that file.
                  Project m;
                  m.write_model("net.onnx", 1, 600, 600);
                  m.write_config("[model]\nsource = \"net.onnx\"\n[build]\nexternal_data_threshold_mib = 1\n");
                  m.build();
                  e.outputs = {s.put_blob("export.onnx", test::read_text(m.out("net", "export.onnx")), &shas[0])};
                  shas.resize(1);
                }}),
    [](const auto& info) { return info.param.name; });

TEST(HostileServer, AnEntryOver16MiBIsAMissAndTheRemoteStaysOn) {
  REQUIRE_NGINX();
  Published p;
  ServerEntries server(p.server);
  // The genuine entry, then 17 MiB in a field no client reads.
  std::string bytes = test::read_text(server.entry_file(p.key("export")));
  const std::size_t pad = 17u << 20;
  bytes += static_cast<char>((15 << 3) | 2);
  for (std::size_t n = pad; n >= 0x80; n >>= 7) bytes += static_cast<char>((n & 0x7f) | 0x80);
  bytes += static_cast<char>(pad >> 21);
  bytes += std::string(pad, 'p');
  server.write_raw(p.key("export"), bytes);

  Project b;
  json r = build_against_forgery(p, b, "entry too large");
  EXPECT_EQ(r["remote_cache"]["uploads"], 1) << "the rebuilt export is shared again: " << r.dump();
  EXPECT_EQ(r["remote_cache"]["hits"], 5);
  EXPECT_EQ(r["remote_cache"]["refused"], 1);
  expect_nothing_forged_spread(p, b);
}

TEST(HostileServer, AnEntryThatWouldNotFitOnTheDiskIsNotDownloaded) {
  REQUIRE_NGINX();
  Published p;
  ServerEntries server(p.server);
  auto genuine = server.read(p.key("export"));
  ASSERT_TRUE(genuine);
  Project b;
  fs::create_directories(b.cache_dir());
  struct statvfs st {};
  ASSERT_EQ(::statvfs(b.cache_dir().c_str(), &st), 0);
  const std::uint64_t free = static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
  const std::uint64_t claim = free + (1ull << 30);
  ASSERT_LT(claim, store::kMaxEntryBytes) << "the claim must break no other rule";
  store::ActionEntry entry = genuine->entry;
  entry.outputs[0].size = claim;
  server.write(entry, {genuine->blobs[0].sha256});

  json r = build_against_forgery(p, b, "would not fit on the disk");
  EXPECT_FALSE(test::downloaded(p.server, genuine->blobs[0].sha256)) << p.server.access_log();
  EXPECT_EQ(r["remote_cache"]["hits"], 5) << "the remote stays on";
  expect_nothing_forged_spread(p, b);
}

// The forged export entry lists export.onnx twice (the genuine bytes, then
// another model's) and optimize's entry is missing from the server: the
// client must not run optimize on the other model and share the result
// under optimize's genuine key.
TEST(HostileServer, APoisonedEntryRemovedFromTheServerLeavesNoGenuineKeyHoldingItsFruit) {
  REQUIRE_NGINX();
  Published p;
  ServerEntries server(p.server);
  auto genuine = server.read(p.key("export"));
  ASSERT_TRUE(genuine);
  store::ActionEntry entry = genuine->entry;
  std::vector<std::string> shas = {genuine->blobs[0].sha256};
  entry.outputs.push_back(server.put_blob("export.onnx", other_model_bytes(), &shas.emplace_back()));
  server.write(entry, shas);
  server.remove(p.key("optimize"));

  Project b;
  json r = build_against_forgery(p, b, "outputs break the rules");
  EXPECT_EQ(test::statuses(r).at("net/optimize"), "completed");
  // The purge the docs advise: the forged entry goes (if the honest upload
  // did not already replace it).
  server.remove(p.key("export"));
  expect_nothing_forged_spread(p, b);
  // A third, clean clone with an honest export restores everything else and
  // builds the clean bytes.
  Project c;
  p.a.clone_to(c.root());
  json third = c.build({}, 0, test::remote_env(p.server.url()));
  EXPECT_EQ(test::artifacts(p.a.root() / "build"), test::artifacts(c.root() / "build"));
  EXPECT_TRUE(third["cache_rejections"].empty()) << third.dump();
}

TEST(HostileServer, GarbageAndAnEntryOfAnotherKeyAreCountedNotSilent) {
  REQUIRE_NGINX();
  Published p;
  ServerEntries server(p.server);
  // The optimize entry copied under quantize's key: its record names optimize's key.
  server.write_raw(p.key("quantize"), test::read_text(server.entry_file(p.key("optimize"))));
  server.write_raw(p.key("export"), "not a protobuf \xff\xff\xff");
  Project b;
  p.a.clone_to(b.root());
  json r = b.build({}, 0, test::remote_env(p.server.url()));
  EXPECT_EQ(test::artifacts(p.a.root() / "build"), test::artifacts(b.root() / "build"));
  const std::string err = r.value("_stderr", "");
  EXPECT_NE(err.find("2 cache entries refused, the stages ran instead: 2 unreadable entry (remote)"), std::string::npos)
      << err;
  ASSERT_EQ(r["cache_rejections"].size(), 2u) << r.dump();
  std::set<std::string> details;
  for (const auto& x : r["cache_rejections"]) details.insert(x["detail"]);
  EXPECT_EQ(details, (std::set<std::string>{"not an ActionResult", "the record of another key"}));
  expect_nothing_forged_spread(p, b);
}

TEST(HostileServer, ATricklingServerIsCutOffAtTheTotalLimitPerTransfer) {
  // Answers every request with a body sent just fast enough never to stall.
  test::TricklingServer server;
  Project a;
  a.write_small_project("[build]\nremote_cache_transfer_timeout = 2\n");
  const auto start = std::chrono::steady_clock::now();
  auto r = a.run({}, test::remote_env("http://127.0.0.1:" + std::to_string(server.port()) + "/cache"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(test::count_of(r.out + r.err, "winml-make: warning:"), 1) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("the limit of 2 s per transfer"), std::string::npos) << r.out << r.err;
  EXPECT_LT(seconds, 15) << "a trickling server held the build";
  EXPECT_TRUE(fs::exists(a.out("net", "model.onnx")));
}

}  // namespace

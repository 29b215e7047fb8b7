// The builder on fake stages: staleness, early cutoff, failures, -k, -j,
// interruption, sidecar cleanup, the cache and dry runs. On an in-memory disk
// (fake_disk.h), the cache included; fake stages concatenate their inputs.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "base/error.h"
#include "base/glob_match.h"
#include "base/path_text.h"
#include "graph/builder.h"
#include "graph/inputs.h"
#include "graph/key.h"
#include "support/fake_disk.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

// Each node writes <primary> = its parameter + the contents of its inputs,
// through the build's disk (ninja's FakeCommandRunner).
class FakeRunner : public graph::NodeRunner {
 public:
  store::DiskInterface* disk = nullptr;
  std::map<std::string, std::string> params;        // node id -> parameter (also a static ingredient)
  std::map<std::string, std::string> fixed_output;  // node id -> output regardless of inputs
  std::map<std::string, std::string> sidecar;       // node id -> content of "<primary>.data"
  std::set<std::string> failing;
  std::map<std::string, int> runs;
  std::string wait_for_cancel;  // node id that blocks until cancelled
  int sleep_ms = 0;
  std::atomic<int> running{0}, max_running{0};
  std::mutex mu;

  graph::RunResult run(const graph::RunRequest& req) override {
    const std::string id = req.node.id();
    {
      std::lock_guard lock(mu);
      ++runs[id];
    }
    int now = ++running;
    for (int m = max_running; now > m && !max_running.compare_exchange_weak(m, now);) {}
    struct Leave {
      std::atomic<int>& r;
      ~Leave() { --r; }
    } leave{running};
    if (sleep_ms) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
    if (id == wait_for_cancel) {
      while (!req.cancel->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      throw graph::Interrupted();
    }
    if (failing.count(id)) throw BuildError(id + ": fake failure");
    std::lock_guard lock(mu);  // the fake disk is a plain map
    std::string out = params[id];
    for (const auto& in : req.inputs)
      for (const auto& f : in.files) out += "|" + disk->read(f);
    for (const auto& f : req.extra_inputs) out += "|" + disk->read(f);
    if (fixed_output.count(id)) out = fixed_output[id];
    disk->write_atomic(req.staging_dir / req.node.primary_output, out);
    if (sidecar.count(id)) disk->write_atomic(req.staging_dir / (req.node.primary_output + ".data"), sidecar[id]);
    return {R"({"fake":true})"};
  }
  // A fake artifact names "<primary>.data" when it is there.
  std::vector<std::string> artifact_files(const fs::path& primary) override {
    std::lock_guard lock(mu);
    std::vector<std::string> files = {primary.filename().string()};
    if (disk->stat(to_utf8(primary) + ".data").exists) files.push_back(primary.filename().string() + ".data");
    return files;
  }
  int total_runs() {
    int n = 0;
    for (auto& [k, v] : runs) n += v;
    return n;
  }
};

// A project on a fake disk: its own, or one it shares with other projects
// and caches (two machines and a server, say).
struct Fixture {
  explicit Fixture(const std::string& root = "/virtual/project", std::shared_ptr<test::FakeDisk> shared = {})
      : fake(shared ? std::move(shared) : std::make_shared<test::FakeDisk>()), disk(*fake), root(root) {
    runner.disk = &disk;
    for (const auto& t : models) write(project() / (t + ".txt"), "source-" + t);
  }

  std::shared_ptr<test::FakeDisk> fake;
  store::DiskInterface& disk;
  fs::path root;
  FakeRunner runner;
  std::vector<std::string> models = {"a"};

  fs::path project() const { return root; }
  fs::path out() const { return root / "build"; }
  void write(const fs::path& p, const std::string& text) {
    disk.make_directories(p.parent_path());
    disk.write_atomic(p, text);
  }
  std::string read(const fs::path& p) const { return disk.read(p); }
  // A cache on this project's disk.
  store::LocalCache cache(const std::string& root = "/virtual/cache") { return store::LocalCache(root, disk); }
  bool exists(const fs::path& p) const { return disk.stat(to_utf8(p)).exists; }

  // Per target: gen (reads <target>.txt) -> mid -> pkg.
  graph::Graph graph() {
    graph::Graph g;
    for (const auto& t : models) {
      g.models.push_back(t);
      std::size_t base = g.nodes.size();
      const char* names[] = {"gen", "mid", "pkg"};
      for (int i = 0; i < 3; ++i) {
        graph::Node n;
        n.model = t;
        n.name = names[i];
        n.implementation = "fake";
        n.primary_output = std::string(names[i]) + ".out";
        if (i > 0) n.deps = {base + i - 1};
        else n.extra_inputs = {{graph::InputKind::kFile, t + ".txt"}};
        n.static_ingredients = {graph::text_ingredient("config:param", runner.params[n.id()]),
                                graph::text_ingredient("implementation", "fake")};
        n.static_digest = graph::static_digest_of(n.static_ingredients);
        g.nodes.push_back(n);
      }
    }
    return g;
  }

  void add_model(const std::string& t) {
    models.push_back(t);
    write(project() / (t + ".txt"), "source-" + t);
  }

  std::vector<graph::NodeResult> build(graph::BuildOptions o = {}, store::LocalCache* cache = nullptr) {
    return build(graph(), o, cache);
  }
  std::vector<graph::NodeResult> build(const graph::Graph& g, graph::BuildOptions o = {},
                                       store::LocalCache* cache = nullptr) {
    store::BuildState state(disk, out() / ".winml-make", project());
    state.load();
    store::IngredientLog log(disk, out() / ".winml-make" / "ingredients");
    graph::Builder b(g, {project(), out(), out() / ".winml-make"}, state, log, runner);
    o.cache = cache;
    auto r = b.build(o);
    if (!o.dry_run) state.save();
    return r;
  }
  // The record of `id` as the next build will read it.
  bool has_record(const std::string& id) {
    store::BuildState state(disk, out() / ".winml-make", project());
    state.load();
    return state.find(id) != nullptr;
  }
};

std::vector<std::string> statuses(const std::vector<graph::NodeResult>& rs) {
  std::vector<std::string> s;
  for (const auto& r : rs) s.push_back(graph::status_word(r.status));
  return s;
}

using V = std::vector<std::string>;

graph::BuildOptions opts(int jobs = 1, bool keep_going = false) {
  graph::BuildOptions o;
  o.jobs = jobs;
  o.keep_going = keep_going;
  return o;
}

}  // namespace

TEST(Builder, SecondBuildIsANoOp) {
  Fixture f;
  EXPECT_EQ(statuses(f.build()), (V{"completed", "completed", "completed"}));
  EXPECT_EQ(f.read(f.out() / "a" / "pkg.out"), "|||source-a");
  EXPECT_EQ(statuses(f.build()), (V{"up-to-date", "up-to-date", "up-to-date"}));
  EXPECT_EQ(f.runner.total_runs(), 3);
  // Outputs of one node are made durable together: one directory sync each.
  EXPECT_EQ(f.fake->syncs, 3);
}

TEST(Builder, TouchingEveryFileRerunsNothing) {
  Fixture f;
  f.build();
  f.fake->advance_ms(20);
  std::vector<std::string> all;
  for (const auto& [path, file] : f.fake->files) all.push_back(path);
  for (const auto& path : all) f.fake->touch(path);
  const int hashed = f.fake->hash_calls;
  EXPECT_EQ(statuses(f.build()), (V{"up-to-date", "up-to-date", "up-to-date"}));
  EXPECT_GT(f.fake->hash_calls, hashed);  // touched files are hashed again, and found unchanged
  EXPECT_EQ(f.runner.total_runs(), 3);
}

TEST(Builder, ChangedParameterRerunsFromThatNode) {
  Fixture f;
  f.build();
  f.runner.params["a/mid"] = "v2";
  auto r = f.build([] {
    auto o = opts();
    o.explain = true;
    return o;
  }());
  EXPECT_EQ(statuses(r), (V{"up-to-date", "completed", "completed"}));
  EXPECT_EQ(r[1].reason, "config param changed");
  ASSERT_EQ(r[1].explanation.size(), 1u);
  EXPECT_NE(r[1].explanation[0].find("config param:  -> v2"), std::string::npos) << r[1].explanation[0];
  EXPECT_NE(r[2].reason.find("input mid.out changed"), std::string::npos) << r[2].reason;
}

TEST(Builder, EarlyCutoffWhenARerunProducesTheSameBytes) {
  Fixture f;
  f.runner.fixed_output["a/mid"] = "constant";
  f.build();
  f.runner.params["a/mid"] = "v2";  // reruns mid, which writes the same bytes
  EXPECT_EQ(statuses(f.build()), (V{"up-to-date", "completed", "up-to-date"}));
  EXPECT_EQ(f.runner.runs["a/pkg"], 1);
}

TEST(Builder, ChangedSourceRerunsEverything) {
  Fixture f;
  f.build();
  f.write(f.project() / "a.txt", "new source");
  auto r = f.build();
  EXPECT_EQ(statuses(r), (V{"completed", "completed", "completed"}));
  EXPECT_EQ(r[0].reason, "file a.txt changed");
}

TEST(Builder, MissingOrModifiedOutputReruns) {
  Fixture f;
  f.build();
  f.disk.remove(f.out() / "a" / "mid.out");
  auto r = f.build();
  EXPECT_EQ(statuses(r), (V{"up-to-date", "completed", "up-to-date"}));
  EXPECT_EQ(r[1].reason, "output mid.out is missing");
  f.fake->advance_ms(5);
  f.write(f.out() / "a" / "pkg.out", "edited by hand");
  r = f.build();
  EXPECT_EQ(statuses(r), (V{"up-to-date", "up-to-date", "completed"}));
  EXPECT_EQ(r[2].reason, "output pkg.out was modified");
  EXPECT_EQ(f.read(f.out() / "a" / "pkg.out"), "|||source-a");
}

TEST(Builder, StaleSidecarIsRemovedWhenTheNewOutputHasNone) {
  Fixture f;
  f.runner.sidecar["a/mid"] = "weights";
  f.build();
  ASSERT_TRUE(f.exists(f.out() / "a" / "mid.out.data"));
  f.runner.sidecar.clear();
  f.runner.params["a/mid"] = "small";
  f.build();
  EXPECT_FALSE(f.exists(f.out() / "a" / "mid.out.data"));
  // And a sidecar is an input of the next node: when mid reruns and only its
  // sidecar differs, pkg reruns because of the sidecar.
  f.runner.fixed_output["a/mid"] = "same primary";
  f.runner.sidecar["a/mid"] = "w1";
  f.runner.params["a/mid"] = "p1";
  f.build();
  f.runner.sidecar["a/mid"] = "w2";
  f.runner.params["a/mid"] = "p2";
  auto r = f.build();
  EXPECT_EQ(r[2].status, graph::Status::kCompleted);
  EXPECT_EQ(r[2].reason, "input mid.out.data changed");
}

TEST(Builder, FailureStopsWithoutKeepGoingAndContinuesWithIt) {
  Fixture f;
  f.add_model("b");
  f.runner.failing = {"a/mid"};
  auto r = f.build(opts(1));
  EXPECT_EQ(r[1].status, graph::Status::kFailed);
  EXPECT_EQ(r[2].status, graph::Status::kNotRun);
  EXPECT_NE(r[1].reason.find("fake failure"), std::string::npos);
  // Target b was not started after a/mid failed (jobs = 1, a first).
  EXPECT_EQ(f.runner.runs["b/pkg"], 0);
  // -k is suggested only where it would help: not for a's own downstream.
  EXPECT_EQ(r[2].reason, "not started: a/mid failed");
  bool b_suggests_k = false;
  for (std::size_t i = 3; i < r.size(); ++i)
    if (r[i].status == graph::Status::kNotRun)
      b_suggests_k |= r[i].reason == "not started: a/mid failed (use -k to keep going)";
  EXPECT_TRUE(b_suggests_k);

  r = f.build(opts(1, true));
  EXPECT_EQ(r[1].status, graph::Status::kFailed);
  EXPECT_EQ(statuses(r)[5], "completed");
  // A failed node is rerun next time.
  f.runner.failing.clear();
  r = f.build();
  EXPECT_EQ(statuses(r), (V{"up-to-date", "completed", "completed", "up-to-date", "up-to-date", "up-to-date"}));
}

TEST(Builder, IndependentModelsRunInParallel) {
  Fixture f;
  for (int i = 0; i < 5; ++i) f.add_model("t" + std::to_string(i));
  f.runner.sleep_ms = 30;
  auto r = f.build(opts(4));
  for (const auto& x : r) EXPECT_EQ(x.status, graph::Status::kCompleted);
  EXPECT_GT(f.runner.max_running.load(), 1);
  EXPECT_LE(f.runner.max_running.load(), 4);
}

TEST(Builder, StepsWithTheSameKeyRunOnceAndTheOthersRestoreIt) {
  // Two models whose first step reads the same file with the same parameter:
  // the same key. Run side by side they would both do the work.
  Fixture f;
  store::LocalCache cache = f.cache();
  f.add_model("b");
  f.add_model("c");
  f.write(f.project() / "shared.txt", "the same source");
  graph::Graph g = f.graph();
  for (auto& n : g.nodes)
    if (n.name == "gen") n.extra_inputs = {{graph::InputKind::kFile, "shared.txt"}};
  f.runner.sleep_ms = 100;  // long enough for the three to overlap
  auto r = f.build(g, opts(3), &cache);
  int gen_runs = 0, gen_cached = 0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].name != "gen") continue;
    gen_runs += f.runner.runs[g.nodes[i].id()];
    if (r[i].status == graph::Status::kCached) {
      ++gen_cached;
      EXPECT_NE(r[i].reason.find("ran for another model in this build"), std::string::npos) << r[i].reason;
    }
  }
  EXPECT_EQ(gen_runs, 1);
  EXPECT_EQ(gen_cached, 2);
  for (const auto& t : {"a", "b", "c"}) EXPECT_EQ(f.read(f.out() / t / "gen.out"), "|the same source") << t;
  // --rebuild: still once per key, all from this build.
  f.runner.runs.clear();
  auto o = opts(3);
  o.rebuild = true;
  r = f.build(g, o, &cache);
  gen_runs = 0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == "gen") gen_runs += f.runner.runs[g.nodes[i].id()];
  EXPECT_EQ(gen_runs, 1);
}

// A file outside the project declared under a name (a checkpoint in each
// machine's $TORCH_HOME): its ingredient is the name and the content, so the
// same bytes in two places give one key; without the name the place counts.
TEST(Builder, AFileDeclaredUnderANameKeysByWhatItIsNotWhereItIs) {
  Fixture f;
  f.add_model("b");
  const fs::path in_a = "/virtual/home-a/cache/x.pth", in_b = "/virtual/home-b/cache/x.pth";
  f.write(in_a, "the same weights");
  f.write(in_b, "the same weights");
  auto keys = [&](const std::string& name) {
    graph::Graph g = f.graph();
    for (auto& n : g.nodes)
      if (n.name == "gen") n.extra_inputs = {{graph::InputKind::kFile, to_utf8(n.model == "a" ? in_a : in_b), name}};
    auto r = f.build(g, opts(1));
    std::map<std::string, graph::NodeResult> by_model;
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].name == "gen") by_model[g.nodes[i].model] = r[i];
    EXPECT_EQ(by_model["a"].inputs.at(0).name, name.empty() ? "file:" + to_utf8(in_a) : "file:" + name);
    return std::pair(by_model["a"].key, by_model["b"].key);
  };
  auto [named_a, named_b] = keys("$TORCH_HOME/x.pth");
  EXPECT_EQ(named_a, named_b);
  EXPECT_EQ(f.read(f.out() / "b" / "gen.out"), "|the same weights");
  auto [placed_a, placed_b] = keys("");
  EXPECT_NE(placed_a, placed_b);
  // The name does not hide the content: other bytes, another key.
  f.write(in_b, "other weights");
  auto [again_a, again_b] = keys("$TORCH_HOME/x.pth");
  EXPECT_EQ(again_a, named_a);
  EXPECT_NE(again_b, named_b);
}

TEST(Builder, InterruptedNodeIsNotRecordedAndRerunsNextTime) {
  Fixture f;
  std::atomic<bool> cancel{false};
  f.runner.wait_for_cancel = "a/mid";
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel = true;
  });
  auto r = f.build([&] {
    auto o = opts();
    o.cancel = &cancel;
    return o;
  }());
  stopper.join();
  EXPECT_EQ(statuses(r), (V{"completed", "not-run", "not-run"}));
  EXPECT_EQ(r[1].reason, "interrupted");
  EXPECT_FALSE(f.exists(f.out() / "a" / "mid.out"));
  EXPECT_TRUE(f.disk.list_files(f.out() / ".winml-make" / "staging").empty());
  f.runner.wait_for_cancel.clear();
  EXPECT_EQ(statuses(f.build()), (V{"up-to-date", "completed", "completed"}));
}

TEST(Builder, DryRunWritesNothingAndSaysWhy) {
  Fixture f;
  auto r = f.build([] {
    auto o = opts();
    o.dry_run = true;
    return o;
  }());
  EXPECT_EQ(statuses(r), (V{"would-run", "would-run", "would-run"}));
  EXPECT_FALSE(f.exists(f.out() / "a"));
  EXPECT_FALSE(f.exists(f.out()));
  f.build();
  f.write(f.project() / "a.txt", "changed");
  r = f.build([] {
    auto o = opts();
    o.dry_run = true;
    return o;
  }());
  EXPECT_EQ(statuses(r), (V{"would-run", "would-run", "would-run"}));
  EXPECT_EQ(r[0].reason, "file a.txt changed");
  EXPECT_EQ(r[1].reason, "an input will be rebuilt (reruns only if its content changes)");
  EXPECT_EQ(f.runner.total_runs(), 3);
}

TEST(Builder, RebuildRunsEverythingAgain) {
  Fixture f;
  f.build();
  auto r = f.build([] {
    auto o = opts();
    o.rebuild = true;
    return o;
  }());
  EXPECT_EQ(statuses(r), (V{"completed", "completed", "completed"}));
  EXPECT_EQ(f.runner.total_runs(), 6);
}

TEST(Builder, CacheRestoresEverythingAfterTheOutputDirIsGone) {
  Fixture f;
  store::LocalCache cache = f.cache();
  f.build({}, &cache);
  f.disk.remove_tree(f.out());
  auto r = f.build({}, &cache);
  EXPECT_EQ(statuses(r), (V{"cached", "cached", "cached"}));
  EXPECT_EQ(f.runner.total_runs(), 3);
  EXPECT_EQ(f.read(f.out() / "a" / "pkg.out"), "|||source-a");
  EXPECT_EQ(r[2].metrics_json, R"({"fake":true})");
}

TEST(Builder, CorruptCacheBlobIsDetectedAndRebuilt) {
  Fixture f;
  store::LocalCache cache = f.cache();
  auto first = f.build({}, &cache);
  // Flip the bytes of the blob behind mid.out.
  fs::path blob = cache.blob_path(first[1].outputs[0].digest);
  std::string bytes = f.read(blob);
  bytes[0] ^= 1;
  f.fake->put(to_utf8(blob), bytes);
  f.disk.remove_tree(f.out());
  auto r = f.build({}, &cache);
  EXPECT_EQ(r[0].status, graph::Status::kCached);
  EXPECT_EQ(r[1].status, graph::Status::kCompleted);
  EXPECT_NE(r[1].reason.find("is corrupt"), std::string::npos) << r[1].reason;
  EXPECT_EQ(f.read(f.out() / "a" / "mid.out"), "||source-a");
  EXPECT_EQ(f.runner.runs["a/mid"], 2);
  // The bad blob was replaced by the rebuild's correct one.
  EXPECT_EQ(f.disk.hash(blob, nullptr), first[1].outputs[0].digest);
}

// The remote tier as the builder sees it: here another machine's local
// cache, shared by copy (src/remote does it over HTTP).
struct SharedCacheRemote : store::RemoteCache {
  SharedCacheRemote(store::LocalCache& shared, store::DiskInterface& disk) : shared(shared), disk(disk) {}
  store::Fetched fetch(const store::Digest& key, const std::string& primary, store::LocalCache& local) override {
    ++fetches;
    auto entry = shared.lookup(key);
    const fs::path staging = "/transfer/" + key.hex();
    if (!entry || shared.restore(*entry, staging)) return {};
    // The blobs, not the entry: the builder records it once checked.
    local.store(*entry, staging);
    local.forget(key);
    disk.remove_tree(staging);
    return {entry, std::nullopt};
  }
  void upload(const store::ActionEntry& entry, store::LocalCache& local) override {
    uploaded.push_back(entry.outputs[0].name);
    const fs::path staging = "/transfer/" + entry.key.hex();
    ASSERT_FALSE(local.restore(entry, staging));
    shared.store(entry, staging);
    disk.remove_tree(staging);
  }
  store::LocalCache& shared;
  store::DiskInterface& disk;
  int fetches = 0;
  std::vector<std::string> uploaded;
};

TEST(Builder, TheRemoteTierFillsTheLocalCacheAndReceivesOnlyWhatRan) {
  // Two machines and a server, on one fake disk.
  auto disk = std::make_shared<test::FakeDisk>();
  store::LocalCache shared("/server/cache", *disk), cache_a("/a/cache", *disk), cache_b("/b/cache", *disk);
  SharedCacheRemote remote(shared, *disk);
  graph::BuildOptions o;
  o.remote = &remote;
  Fixture a("/a/project", disk);
  a.build(o, &cache_a);
  EXPECT_EQ(remote.uploaded, (V{"gen.out", "mid.out", "pkg.out"}));

  // Another machine: an empty local cache, the shared one behind it.
  Fixture b("/b/project", disk);
  auto r = b.build(o, &cache_b);
  EXPECT_EQ(statuses(r), (V{"cached", "cached", "cached"}));
  for (const auto& n : r) EXPECT_TRUE(n.from_remote);
  EXPECT_EQ(b.runner.total_runs(), 0);
  EXPECT_EQ(remote.uploaded.size(), 3u) << "restores are not uploaded";
  EXPECT_EQ(b.read(b.out() / "a" / "pkg.out"), "|||source-a");

  // The hits filled b's local cache: the remote is not asked again.
  const int fetches = remote.fetches;
  b.disk.remove_tree(b.out());
  r = b.build(o, &cache_b);
  EXPECT_EQ(statuses(r), (V{"cached", "cached", "cached"}));
  EXPECT_FALSE(r[0].from_remote);
  EXPECT_EQ(remote.fetches, fetches);
}

TEST(Builder, CachedOnlyFailsTheFirstStageThatWouldRun) {
  Fixture f;
  store::LocalCache cache = f.cache();
  graph::BuildOptions o;
  o.cached_only = true;
  auto r = f.build(o, &cache);
  EXPECT_EQ(r[0].status, graph::Status::kFailed);
  EXPECT_NE(r[0].reason.find("--cached-only forbids running it"), std::string::npos) << r[0].reason;
  EXPECT_EQ(r[1].status, graph::Status::kNotRun);
  EXPECT_EQ(f.runner.total_runs(), 0);
  // Once in the cache, the same build succeeds without running anything.
  Fixture g("/virtual/another-clone", f.fake);
  g.build({}, &cache);
  f.disk.remove_tree(f.out());
  r = f.build(o, &cache);
  EXPECT_EQ(statuses(r), (V{"cached", "cached", "cached"}));
}

TEST(Builder, DisabledNodeIsSkippedAndItsOldArtifactRemoved) {
  Fixture f;
  f.build();
  ASSERT_TRUE(f.exists(f.out() / "a" / "mid.out"));
  graph::Graph g = f.graph();
  g.nodes[1].enabled = false;
  g.nodes[1].disabled_reason = "disabled in config";
  g.nodes[2].deps = {0};
  // A dry run says it is news (the last build ran it), and removes nothing.
  graph::BuildOptions dry;
  dry.dry_run = true;
  auto preview = f.build(g, dry);
  EXPECT_EQ(preview[1].status, graph::Status::kDisabled);
  EXPECT_TRUE(preview[1].newly_disabled);
  EXPECT_TRUE(f.exists(f.out() / "a" / "mid.out"));
  auto r = f.build(g);
  EXPECT_EQ(statuses(r), (V{"up-to-date", "skipped", "completed"}));
  EXPECT_EQ(r[1].reason, "disabled in config");
  EXPECT_TRUE(r[1].newly_disabled);
  EXPECT_FALSE(f.exists(f.out() / "a" / "mid.out"));
  EXPECT_EQ(f.read(f.out() / "a" / "pkg.out"), "||source-a");
  // Skipped again: nothing new to say.
  EXPECT_FALSE(f.build(g)[1].newly_disabled);
}

// The record of a stage the last build skipped stays, without outputs: enabled
// again, it is not "never built", in a dry run or a build.
TEST(Builder, AStageEnabledAgainIsToldAsSuch) {
  Fixture f;
  f.build();
  graph::Graph g = f.graph();
  g.nodes[1].enabled = false;
  g.nodes[2].deps = {0};
  f.build(g);
  EXPECT_TRUE(f.has_record("a/mid"));
  graph::BuildOptions dry;
  dry.dry_run = true;
  auto preview = f.build(dry);
  EXPECT_EQ(preview[1].status, graph::Status::kStale);
  EXPECT_EQ(preview[1].reason, "enabled again (skipped by the last build)");
  auto r = f.build();
  EXPECT_EQ(statuses(r), (V{"up-to-date", "completed", "completed"}));
  EXPECT_EQ(r[1].reason, "enabled again (skipped by the last build)");
  EXPECT_EQ(f.read(f.out() / "a" / "pkg.out"), "|||source-a");
  EXPECT_EQ(statuses(f.build()), (V{"up-to-date", "up-to-date", "up-to-date"}));
}

TEST(Builder, AnErrorDecidingANodeBehindAFailureIsItsFailureNotTheWorkers) {
  // A disabled node whose input failed is decided on the workers' lock; its
  // old artifact is removed there, and a record naming a file outside the
  // output directory makes that removal throw.
  for (int jobs : {1, 2}) {
    Fixture f;
    f.build();
    {
      store::BuildState state(f.disk, f.out() / ".winml-make", f.project());
      state.load();
      store::NodeRecord rec = *state.find("a/mid");
      rec.outputs.push_back({"../../escape", store::digest_of("x"), 1});
      state.put("a/mid", rec);
      state.save();
    }
    graph::Graph g = f.graph();
    g.nodes[1].enabled = false;
    f.runner.failing = {"a/gen"};
    f.write(f.project() / "a.txt", "changed");
    std::vector<graph::NodeResult> r;
    ASSERT_NO_THROW(r = f.build(g, opts(jobs, true))) << "-j " << jobs;
    EXPECT_EQ(statuses(r), (V{"failed", "failed", "not-run"})) << "-j " << jobs;
    EXPECT_NE(r[1].reason.find("refusing to delete"), std::string::npos) << r[1].reason;
  }
}

TEST(Builder, MissingDeclaredInputIsAnInputError) {
  Fixture f;
  f.disk.remove(f.project() / "a.txt");
  auto r = f.build();
  EXPECT_EQ(r[0].status, graph::Status::kFailed);
  EXPECT_TRUE(r[0].input_error);
  EXPECT_NE(r[0].reason.find("a.txt: no such file"), std::string::npos) << r[0].reason;
}

TEST(Builder, KeysDoNotDependOnTheProjectLocation) {
  Fixture one("/virtual/one"), two("/elsewhere/two");
  auto a = one.build();
  auto b = two.build();
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].key, b[i].key);
}

TEST(Inputs, GlobStarsStayInAComponentAndDoubleStarsSpanThem) {
  EXPECT_TRUE(winml::glob_match("*.onnx", "a.onnx"));
  EXPECT_FALSE(winml::glob_match("*.onnx", "dir/a.onnx"));
  EXPECT_TRUE(winml::glob_match("**/*.onnx", "a.onnx"));
  EXPECT_TRUE(winml::glob_match("**/*.onnx", "x/y/a.onnx"));
  EXPECT_TRUE(winml::glob_match("calib/**", "calib/0/input.npy"));
  EXPECT_TRUE(winml::glob_match("s?.py", "s1.py"));
  EXPECT_FALSE(winml::glob_match("s?.py", "s/.py"));
  EXPECT_FALSE(winml::glob_match("*.onnx", "a.onnx.data"));
}

TEST(Inputs, DeclaredGlobTreeAndFileInputsEnterTheKeyByRelativeName) {
  Fixture f;
  f.write(f.project() / "scripts" / "a.py", "a");
  f.write(f.project() / "scripts" / "sub" / "b.py", "b");
  f.write(f.project() / "calib" / "0" / "x.npy", "x");
  store::BuildState state(f.disk, f.out() / ".winml-make", f.project());
  std::vector<graph::InputDecl> decls = {{graph::InputKind::kGlob, "scripts/**/*.py"},
                                         {graph::InputKind::kTree, "calib"},
                                         {graph::InputKind::kFile, "a.txt"}};
  auto resolved = graph::resolve_inputs(decls, f.project(), state, f.runner);
  std::vector<std::string> names;
  for (const auto& r : resolved) names.push_back(r.ingredient.name);
  EXPECT_EQ(names, (V{"file:scripts/a.py", "file:scripts/sub/b.py", "file:calib/0/x.npy", "file:a.txt"}));
  EXPECT_EQ(resolved[2].ingredient.digest, store::digest_of("x"));
  EXPECT_THROW(graph::resolve_inputs({{graph::InputKind::kTree, "missing"}}, f.project(), state, f.runner), InputError);
}

// pipeline::Build, the library call behind `winml-make`, in process: a
// project on the fake disk, fake stages, and the local cache's lock on a
// real temporary folder (an flock needs a real file). What it chooses to
// build (named models, shards), how it opens the caches (off, its lock
// refused or held, a remote behind it), and what a build through it leaves.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "base/error.h"
#include "base/native_file.h"
#include "base/path_text.h"
#include "base/this_process.h"
#include "pipeline/build_run.h"
#include "pipeline/shard.h"
#include "store/lock.h"
#include "support/fake_pipeline.h"
#include "support/platform.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

// Each node writes the context its stage declared, as the session hands it
// to a stage that runs (stage_runner does the same), and its model's source.
class ContextNodes : public graph::NodeRunner {
 public:
  ContextNodes(store::DiskInterface& disk, pipeline::BuildSession& session) : disk_(disk), session_(session) {}
  graph::RunResult run(const graph::RunRequest& req) override {
    const std::string text =
        session_.declared_context(req.node).config.dump() + "\n" + session_.model_settings(req.node.model).model.source;
    disk_.write_atomic(req.staging_dir / req.node.primary_output, text);
    return {};
  }

 private:
  store::DiskInterface& disk_;
  pipeline::BuildSession& session_;
};

// No shared cache named in the environment for the length of a test.
struct NoRemoteInEnvironment {
  NoRemoteInEnvironment() { env.unset("WINML_MAKE_REMOTE_CACHE"); }
  test::ScopedEnvironment env;
};

struct BuildProject : test::FakeProject {
  NoRemoteInEnvironment no_remote;
  test::TempDir cache_dir;  // real: the cache's lock is an flock
  std::vector<std::string> warnings;
  std::mutex warnings_mu;

  pipeline::BuildRequest request() {
    return {.session = options(), .cache_dir = cache_dir.path(), .warn = [this](const std::string& w) {
              std::lock_guard lock(warnings_mu);
              warnings.push_back(w);
            }};
  }
  std::vector<graph::NodeResult> build(pipeline::BuildRequest r) {
    pipeline::Build b(std::move(r), registry);
    EXPECT_TRUE(b.open());
    test::FakeNodes runner(disk);
    return b.run(runner, nullptr);
  }
  std::vector<graph::NodeResult> build() { return build(request()); }
  bool built(const std::string& model) { return disk.stat(to_utf8(dir / "build" / model / "model.onnx")).exists; }
};

std::vector<std::string> status_words(const std::vector<graph::NodeResult>& results) {
  std::vector<std::string> out;
  for (const auto& r : results) out.push_back(graph::status_word(r.status, false));
  return out;
}

std::vector<std::string> six_of(const std::string& word) { return std::vector<std::string>(6, word); }

template <typename... V>
std::vector<std::string> concat(const std::vector<std::string>& first, const V&... rest) {
  std::vector<std::string> out = first;
  (out.insert(out.end(), rest.begin(), rest.end()), ...);
  return out;
}

// "I/N" for the first shard (N up to 8) that holds exactly `wanted` of `models`.
std::string shard_holding(const std::set<std::string>& wanted, const std::vector<std::string>& models) {
  for (unsigned n = 2; n <= 8; ++n)
    for (unsigned i = 1; i <= n; ++i) {
      std::set<std::string> held;
      for (const auto& m : models)
        if (pipeline::Shard{i, n}.holds(m)) held.insert(m);
      if (held == wanted) return std::to_string(i) + "/" + std::to_string(n);
    }
  ADD_FAILURE() << "no shard of up to 8 holds exactly the models wanted";
  return "1/1";
}

}  // namespace

TEST(Build, BuildsEveryModelThenFindsEverythingUpToDate) {
  BuildProject p;
  EXPECT_EQ(status_words(p.build()), concat(six_of("completed"), six_of("completed")));
  EXPECT_TRUE(p.built("a") && p.built("b"));
  EXPECT_TRUE(p.disk.stat(to_utf8(p.dir / "build" / "b" / pipeline::kManifestFile)).exists);
  EXPECT_EQ(status_words(p.build()), concat(six_of("up-to-date"), six_of("up-to-date")));
  EXPECT_EQ(p.config_reads(), 1) << "the second build reused the stored plan";
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Build, ADryRunDecidesWithoutWritingAnything) {
  BuildProject p;
  auto r = p.request();
  r.dry_run = true;
  pipeline::Build b(std::move(r), p.registry);
  ASSERT_TRUE(b.open());
  EXPECT_EQ(b.options().cache, nullptr) << "a dry run neither restores nor stores";
  test::FakeNodes runner(p.disk);
  EXPECT_EQ(status_words(b.run(runner, nullptr)), concat(six_of("would-run"), six_of("would-run")));
  // Not even the memo of the model's sidecars (status and graph read the
  // state the same way, beside a build that may be writing it).
  EXPECT_EQ(p.disk.list_files(p.dir / "build"), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(p.cache_dir / "lock"));
}

TEST(Build, NamedModelsAloneAreBuiltAndAnUnknownNameIsAnInputErrorListingTheModels) {
  BuildProject p;
  auto r = p.request();
  r.models = {"b"};
  pipeline::Build b(std::move(r), p.registry);
  ASSERT_TRUE(b.open());
  EXPECT_FALSE(b.models().is_every_model());
  EXPECT_EQ(b.models().names(), (std::set<std::string>{"b"}));
  EXPECT_EQ(b.node_count(), 6u);
  test::FakeNodes runner(p.disk);
  EXPECT_EQ(status_words(b.run(runner, nullptr)), concat(six_of("not-run"), six_of("completed")));
  EXPECT_FALSE(p.built("a"));
  EXPECT_TRUE(p.built("b"));

  auto unknown = p.request();
  unknown.models = {"bb"};
  pipeline::Build c(std::move(unknown), p.registry);
  try {
    c.open();
    FAIL() << "an unknown model was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              to_utf8((p.dir / "winml.toml")) + ": no model named 'bb' (did you mean 'b'?) (models: a, b)");
  }
}

TEST(Build, AShardBuildsOnlyTheModelsItHolds) {
  BuildProject p;
  auto r = p.request();
  r.shard = shard_holding({"a"}, {"a", "b"});
  pipeline::Build b(std::move(r), p.registry);
  ASSERT_TRUE(b.open());
  EXPECT_FALSE(b.nothing_to_build());
  EXPECT_EQ(b.models().names(), (std::set<std::string>{"a"}));
  test::FakeNodes runner(p.disk);
  EXPECT_EQ(status_words(b.run(runner, nullptr)), concat(six_of("completed"), six_of("not-run")));
  EXPECT_TRUE(p.built("a"));
  EXPECT_FALSE(p.built("b"));
}

TEST(Build, AShardHoldingNoModelOpensNoCacheAndBuildsNothing) {
  BuildProject p;
  auto r = p.request();
  r.shard = shard_holding({}, {"a", "b"});
  pipeline::Build b(std::move(r), p.registry);
  ASSERT_TRUE(b.open());
  EXPECT_TRUE(b.nothing_to_build());
  EXPECT_EQ(b.options().cache, nullptr);
  EXPECT_FALSE(fs::exists(p.cache_dir / "lock")) << "the cache's lock was taken for nothing";
  EXPECT_EQ(b.node_count(), 0u);
  test::FakeNodes runner(p.disk);
  EXPECT_EQ(status_words(b.run(runner, nullptr)), concat(six_of("not-run"), six_of("not-run")));
  EXPECT_FALSE(p.built("a") || p.built("b"));
  EXPECT_FALSE(p.disk.stat(to_utf8(p.dir / "build" / "a" / pipeline::kManifestFile)).exists);
}

TEST(Build, ABadShardIsAnInputError) {
  BuildProject p;
  auto r = p.request();
  r.shard = "3/2";
  pipeline::Build b(std::move(r), p.registry);
  EXPECT_THROW(b.open(), InputError);
}

TEST(Build, JobsKeepGoingAndRebuildComeFromTheRequestElseFromTheBuildSection) {
  BuildProject p;
  p.config("[build]\njobs = 3\nkeep_going = true\n[[model]]\nsource = \"a.onnx\"\n");
  {
    pipeline::Build b(p.request(), p.registry);
    ASSERT_TRUE(b.open());
    EXPECT_EQ(b.options().jobs, 3);
    EXPECT_TRUE(b.options().keep_going);
    EXPECT_FALSE(b.options().rebuild);
  }
  {
    auto r = p.request();
    r.jobs = 5;
    r.rebuild = true;
    pipeline::Build b(std::move(r), p.registry);
    ASSERT_TRUE(b.open());
    EXPECT_EQ(b.options().jobs, 5);
    EXPECT_TRUE(b.options().rebuild);
  }
  p.disk.advance_ms(10);
  p.config("[[model]]\nsource = \"a.onnx\"\n");
  pipeline::Build b(p.request(), p.registry);
  ASSERT_TRUE(b.open());
  EXPECT_EQ(b.options().jobs, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  EXPECT_FALSE(b.options().keep_going);
}

TEST(Build, TheCacheIsOffWithNoCacheOrBuildCacheFalse) {
  BuildProject p;
  auto r = p.request();
  r.use_cache = false;
  pipeline::Build off(std::move(r), p.registry);
  ASSERT_TRUE(off.open());
  EXPECT_EQ(off.options().cache, nullptr);

  p.config("[build]\ncache = false\n[[model]]\nsource = \"a.onnx\"\n");
  pipeline::Build by_config(p.request(), p.registry);
  ASSERT_TRUE(by_config.open());
  EXPECT_EQ(by_config.options().cache, nullptr);
  EXPECT_FALSE(fs::exists(p.cache_dir / "lock"));
}

TEST(Build, StoresIntoTheLocalCacheAndRestoresFromIt) {
  BuildProject p;
  p.build();
  EXPECT_TRUE(fs::exists(p.cache_dir / "lock")) << "the cache is used under its shared lock";
  p.disk.remove_tree(p.dir / "build");
  EXPECT_EQ(status_words(p.build()), concat(six_of("cached"), six_of("cached")));
  EXPECT_EQ(p.disk.read(p.dir / "build" / "a" / "model.onnx"), "a/package");
}

TEST(Build, ACacheLockThatCannotBeTakenWarnsAndTheCacheIsStillUsed) {
  BuildProject p;
  fs::create_directories(p.cache_dir / "lock");  // a folder where the lock file would be
  pipeline::Build b(p.request(), p.registry);
  ASSERT_TRUE(b.open());
  ASSERT_NE(b.options().cache, nullptr);
  ASSERT_EQ(p.warnings.size(), 1u);
  // The system's reason: "Is a directory" on POSIX, "Access denied" on Windows.
  ASSERT_LT(native::open_read_write(p.cache_dir / "lock"), 0);
  const std::string why = native::last_error();
  if (test::on_posix()) EXPECT_EQ(why, "Is a directory");
  EXPECT_EQ(p.warnings[0],
            to_utf8((p.cache_dir / "lock")) + ": cannot open lock: " + why + "; using the cache without its lock");
  test::FakeNodes runner(p.disk);
  b.run(runner, nullptr);
  p.disk.remove_tree(p.dir / "build");
  EXPECT_EQ(status_words(p.build()), concat(six_of("cached"), six_of("cached")));
}

TEST(Build, WaitingForTheCacheLockSaysWhoHoldsItAndCanBeInterrupted) {
  BuildProject p;
  // `cache gc` holds the cache exclusively.
  auto gc = store::DirectoryLock::acquire(p.cache_dir / "lock", {});
  std::atomic<bool> cancel{true};
  auto r = p.request();
  r.session.cancel = &cancel;
  std::vector<std::string> told;
  r.on_cache_lock_wait = [&](const fs::path& root, const std::string& holder) {
    told.push_back(root.string() + " " + holder);
  };
  pipeline::Build b(std::move(r), p.registry);
  EXPECT_FALSE(b.open()) << "interrupted while waiting";
  EXPECT_EQ(told,
            (std::vector<std::string>{p.cache_dir.path().string() + " pid " + std::to_string(current_process_id())}));
  gc.reset();
  cancel = false;
  told.clear();
  auto again = p.request();
  again.on_cache_lock_wait = [&](const fs::path&, const std::string& holder) { told.push_back(holder); };
  pipeline::Build unlocked(std::move(again), p.registry);
  EXPECT_TRUE(unlocked.open());
  EXPECT_NE(unlocked.options().cache, nullptr);
  EXPECT_TRUE(told.empty());
}

TEST(Build, ARemoteCacheWithoutTheLocalCacheIsNotUsedAndTheBuildSaysWhy) {
  BuildProject p;
  auto r = p.request();
  r.use_cache = false;
  r.remote_cache = "http://127.0.0.1:9/cache";
  pipeline::Build b(std::move(r), p.registry);
  ASSERT_TRUE(b.open());
  EXPECT_EQ(b.remote(), nullptr);
  EXPECT_EQ(b.options().remote, nullptr);
  EXPECT_EQ(
      p.warnings,
      (std::vector<std::string>{"the remote cache works through the local one; with the cache off it is not used"}));
  // A dry run uses no cache and has nothing to say about it; --no-remote-cache wins.
  p.warnings.clear();
  for (bool dry_run : {true, false}) {
    auto quiet = p.request();
    quiet.use_cache = false;
    quiet.remote_cache = "http://127.0.0.1:9/cache";
    quiet.dry_run = dry_run;
    quiet.no_remote_cache = !dry_run;
    pipeline::Build q(std::move(quiet), p.registry);
    ASSERT_TRUE(q.open());
    EXPECT_EQ(q.remote(), nullptr);
  }
  EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
  // A server winml.toml names is not what --no-cache contradicts: nothing to say.
  p.config("[build]\nremote_cache = \"http://127.0.0.1:9/shared\"\n[[model]]\nsource = \"a.onnx\"\n");
  auto configured = p.request();
  configured.use_cache = false;
  pipeline::Build c(std::move(configured), p.registry);
  ASSERT_TRUE(c.open());
  EXPECT_EQ(c.remote(), nullptr);
  EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
}

TEST(Build, ARemoteCacheIsOpenedBehindTheLocalOneAndABadUrlIsAnInputError) {
  BuildProject p;
  std::string missing;
  if (!remote::http_libraries_available(&missing)) GTEST_SKIP() << missing;
  auto r = p.request();
  r.remote_cache = "http://127.0.0.1:9/cache/";
  pipeline::Build b(std::move(r), p.registry);
  ASSERT_TRUE(b.open());
  ASSERT_NE(b.remote(), nullptr);
  EXPECT_EQ(b.options().remote, b.remote());
  EXPECT_EQ(b.remote()->settings().url, "http://127.0.0.1:9/cache");
  EXPECT_TRUE(p.warnings.empty());

  auto bad = p.request();
  bad.remote_cache = "ftp://127.0.0.1/cache";
  pipeline::Build c(std::move(bad), p.registry);
  EXPECT_THROW(c.open(), InputError);
}

TEST(Build, TheRemoteCacheThatWinmlTomlNamesIsUsedAlsoWhenTheStoredPlanIsReused) {
  BuildProject p;
  std::string missing;
  if (!remote::http_libraries_available(&missing)) GTEST_SKIP() << missing;
  p.config(
      "[build]\nremote_cache = \"http://127.0.0.1:9/shared\"\nremote_cache_transfer_timeout = 7\n"
      "[[model]]\nsource = \"a.onnx\"\n");
  for (int build = 1; build <= 2; ++build) {
    pipeline::Build b(p.request(), p.registry);
    ASSERT_TRUE(b.open());
    ASSERT_NE(b.remote(), nullptr) << "build " << build;
    EXPECT_EQ(b.remote()->settings().url, "http://127.0.0.1:9/shared");
    EXPECT_EQ(b.remote()->settings().http.transfer_seconds, 7);
  }
  EXPECT_EQ(p.config_reads(), 1) << "the second build reused the stored plan";
}

TEST(Build, DamagedStoredContextsAloneLeaveTheArtifactsOfACleanBuild) {
  BuildProject p;
  auto build = [&](bool rebuild) {
    auto r = p.request();
    r.use_cache = false;
    r.rebuild = rebuild;
    pipeline::Build b(std::move(r), p.registry);
    EXPECT_TRUE(b.open());
    ContextNodes runner(p.disk, b.session());
    return b.run(runner, nullptr);
  };
  auto artifacts = [&] {
    std::map<std::string, std::string> out;
    for (const std::string model : {"a", "b"})
      for (const char* file :
           {pipeline::kExportFile, pipeline::kOptimizedFile, pipeline::kAnalyzeFile, pipeline::kQuantizedFile,
            pipeline::kCompiledFile, pipeline::kModelFile, pipeline::kBuildConfigFile})
        out[model + "/" + file] = p.disk.read(p.dir / "build" / model / file);
    return out;
  };
  EXPECT_EQ(status_words(build(false)), concat(six_of("completed"), six_of("completed")));
  const auto clean = artifacts();
  EXPECT_TRUE(clean.at("b/quantized.onnx").ends_with("\nb.onnx")) << clean.at("b/quantized.onnx");
  const fs::path contexts = p.state(pipeline::kContextsFile);
  const std::string stored = p.disk.read(contexts);

  std::string damaged = stored;
  damaged[damaged.size() / 2] ^= 1;
  p.disk.put(contexts.string(), damaged);
  p.disk.advance_ms(1000);
  EXPECT_EQ(status_words(build(/*rebuild=*/true)), concat(six_of("completed"), six_of("completed")));
  EXPECT_EQ(p.config_reads(), 2) << "the plan was reused, its contexts made again";
  EXPECT_EQ(artifacts(), clean);
  EXPECT_EQ(p.disk.read(contexts), stored);
}

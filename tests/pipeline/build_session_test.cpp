// A build session in process, on the fake disk: the plan it makes and
// stores, the stored plan the next session reuses without reading the
// configuration, and the reports it writes at the end of a build that fake
// stages ran.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/path_text.h"
#include "graph/builder.h"
#include "pipeline/build_session.h"
#include "pipeline/clean.h"
#include "pipeline/dead_models.h"
#include "pipeline/layout.h"
#include "pipeline/registry.h"
#include "support/fake_pipeline.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

struct Project : test::FakeProject {
  // Opens a session, builds every model with FakeNodes, finishes.
  std::vector<graph::NodeResult> build() {
    pipeline::BuildSession session(options(), registry);
    EXPECT_TRUE(session.open());
    const auto& plan = session.plan();
    test::FakeNodes runner(disk);
    graph::Builder builder(plan.graph, {dir, plan.output_dir, session.state_dir()}, session.state(),
                           session.ingredients(), runner);
    auto results = builder.build({});
    session.finish(results, {}, false);
    return results;
  }
  nlohmann::json manifest(const std::string& model) {
    return nlohmann::json::parse(disk.read(dir / "build" / model / pipeline::kManifestFile));
  }
};

}  // namespace

TEST(BuildSession, MakesAndStoresThePlanThenReusesItWithoutReadingTheConfig) {
  Project p;
  {
    pipeline::BuildSession session(p.options(), p.registry);
    ASSERT_TRUE(session.open());
    EXPECT_EQ(session.plan().graph.models, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(session.plan().output_dir, p.dir / "build");
    EXPECT_TRUE(p.disk.stat(to_utf8(p.state("plan"))).exists);
  }
  EXPECT_EQ(p.config_reads(), 1);
  pipeline::BuildSession again(p.options(), p.registry);
  ASSERT_TRUE(again.open());
  EXPECT_EQ(again.plan().graph.models, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.config_reads(), 1) << "a stored plan whose memo key matches spares the parse";
}

TEST(BuildSession, AnEditedConfigOrADamagedPlanMakesThePlanAgain) {
  Project p;
  { pipeline::BuildSession(p.options(), p.registry).open(); }
  p.disk.advance_ms(10);
  p.disk.put((p.dir / "winml.toml").string(), "[model]\nsource = \"a.onnx\"\nquantize = false\n");
  {
    pipeline::BuildSession session(p.options(), p.registry);
    ASSERT_TRUE(session.open());
    const auto& g = session.plan().graph;
    EXPECT_EQ(g.models, (std::vector<std::string>{"a"}));
    EXPECT_FALSE(g.nodes[g.find("a", "quantize")].enabled);
  }
  EXPECT_EQ(p.config_reads(), 2);
  p.disk.put(p.state("plan").string(), "not a plan");
  pipeline::BuildSession session(p.options(), p.registry);
  ASSERT_TRUE(session.open());
  EXPECT_EQ(session.plan().graph.models, (std::vector<std::string>{"a"}));
  EXPECT_EQ(p.config_reads(), 3);
}

TEST(BuildSession, WithoutWriteNothingIsWritten) {
  Project p;
  pipeline::BuildSession session(p.options(/*write=*/false), p.registry);
  ASSERT_TRUE(session.open());
  EXPECT_FALSE(p.disk.stat(to_utf8(p.dir / "build")).exists);
}

TEST(BuildSession, AnOutputDirectoryHoldingTheProjectIsRefused) {
  Project p;
  auto o = p.options();
  o.source.output_dir_override = "/fake";
  pipeline::BuildSession session(o, p.registry);
  EXPECT_THROW(session.open(), InputError);
  EXPECT_TRUE(p.disk.list_files("/fake/build").empty());
}

TEST(BuildSession, FinishWritesTheReportsOfWhatItTouchedAndKeepsThemWhileTheyAreCurrent) {
  Project p;
  auto first = p.build();
  for (const auto& r : first) EXPECT_EQ(r.status, graph::Status::kCompleted) << r.reason;
  auto m = p.manifest("a");
  EXPECT_EQ(m["model"], "a");
  EXPECT_EQ(m["status"], "ok");
  EXPECT_EQ(m["stages"][0]["status"], "completed");
  EXPECT_EQ(p.disk.read(p.dir / "build" / "a" / "model.onnx"), "a/package");
  const std::string written = p.disk.read(p.dir / "build" / "b" / pipeline::kManifestFile);

  // Nothing ran: the reports stay as the build that made the artifacts wrote them.
  p.disk.advance_ms(1000);
  auto second = p.build();
  for (const auto& r : second) EXPECT_EQ(r.status, graph::Status::kUpToDate) << r.reason;
  EXPECT_EQ(p.disk.read(p.dir / "build" / "b" / pipeline::kManifestFile), written);
  {
    pipeline::BuildSession session(p.options(false), p.registry);
    ASSERT_TRUE(session.open());
    const auto by_model = session.plan().graph.nodes_by_model();
    EXPECT_TRUE(session.reports_current(0, by_model[0]));
    p.disk.remove(p.dir / "build" / "a" / pipeline::kManifestFile);
    EXPECT_FALSE(session.reports_current(0, by_model[0])) << "deleted";
  }
  // A deleted report is written again, although every stage is up to date.
  p.build();
  EXPECT_EQ(p.manifest("a")["model"], "a");
}

TEST(BuildSession, ANodeThatFailedLeavesAFailedManifest) {
  Project p;
  p.disk.remove(p.dir / "b.onnx");
  auto results = p.build();
  EXPECT_EQ(p.manifest("a")["status"], "ok");
  auto b = p.manifest("b");
  EXPECT_EQ(b["status"], "failed");
  EXPECT_EQ(b["stages"][0]["status"], "failed");
  EXPECT_EQ(b["stages"][1]["status"], "not-run");
}

// The contexts file (pipeline/plan_contexts.h) beside a stored plan that is
// still good: read once when a stage runs or a report is written, else
// made again from winml.toml.
namespace damaged_contexts {

// What a session's contexts say, as text: compared between sessions.
std::string contexts_of(pipeline::BuildSession& session) {
  const pipeline::PlanContexts& c = session.contexts();
  std::string out;
  for (const auto& n : c.nodes) out += n.config.dump() + ";";
  for (const auto& m : c.model_settings) out += m;
  return out;
}

struct ContextsDamage {
  const char* name;
  // Leaves the contexts file at `file` damaged, or gone.
  void (*apply)(test::FakeDisk& disk, const fs::path& file);
};

const ContextsDamage kContextsDamages[] = {
    {"FlippedByte",
     [](test::FakeDisk& d, const fs::path& f) {
       std::string s = d.read(f);
       s[s.size() / 2] ^= 1;
       d.put(f.string(), s);
     }},
    {"Torn", [](test::FakeDisk& d, const fs::path& f) { d.put(f.string(), d.read(f).substr(0, d.read(f).size() / 3)); }},
    {"Empty", [](test::FakeDisk& d, const fs::path& f) { d.put(f.string(), ""); }},
    {"Deleted", [](test::FakeDisk& d, const fs::path& f) { d.remove(f); }},
    // Intact, but made with another plan: what it says may be out of date.
    {"OtherPlans",
     [](test::FakeDisk& d, const fs::path& f) {
       auto c = pipeline::parse_contexts(d.read(f));
       ASSERT_TRUE(c);
       c->memo_key = store::digest_of("another plan");
       c->model_settings[0] = "{}";
       d.put(f.string(), pipeline::serialize_contexts(*c));
     }},
};

void PrintTo(const ContextsDamage& d, std::ostream* os) { *os << d.name; }

class DamagedContexts : public ::testing::TestWithParam<ContextsDamage> {};

}  // namespace damaged_contexts
using damaged_contexts::contexts_of;
using damaged_contexts::DamagedContexts;

TEST_P(DamagedContexts, AreMadeAgainFromTheConfigIntoTheSameBytesWhileThePlanIsReused) {
  Project p;
  p.build();
  const fs::path file = p.state(pipeline::kContextsFile);
  const std::string stored = p.disk.read(file), plan = p.disk.read(p.state("plan"));
  std::string expected;
  {
    pipeline::BuildSession session(p.options(), p.registry);
    ASSERT_TRUE(session.open());
    expected = contexts_of(session);
  }
  ASSERT_EQ(p.config_reads(), 1) << "an intact contexts file is read, winml.toml is not";

  GetParam().apply(p.disk, file);
  pipeline::BuildSession session(p.options(), p.registry);
  ASSERT_TRUE(session.open());
  EXPECT_EQ(p.config_reads(), 1) << "the plan itself is still good";
  EXPECT_EQ(contexts_of(session), expected);
  EXPECT_EQ(p.config_reads(), 2) << "made again from winml.toml";
  EXPECT_EQ(p.disk.read(file), stored) << "written again as the plan wrote it";
  EXPECT_EQ(p.disk.read(p.state("plan")), plan);
  // The same context a stage would run with.
  const auto& g = session.plan().graph;
  EXPECT_EQ(session.declared_context(g.nodes[g.find("b", "quantize")]).config["quantize"]["enabled"], true);
  EXPECT_EQ(session.model_settings("b").model.source, "b.onnx");
}

INSTANTIATE_TEST_SUITE_P(BuildSession, DamagedContexts, ::testing::ValuesIn(damaged_contexts::kContextsDamages),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(BuildSession, WithoutWriteDamagedContextsAreMadeAgainInMemoryOnly) {
  Project p;
  p.build();
  const fs::path file = p.state(pipeline::kContextsFile);
  const std::string stored = p.disk.read(file);
  p.disk.put(file.string(), "damaged");
  pipeline::BuildSession session(p.options(/*write=*/false), p.registry);
  ASSERT_TRUE(session.open());
  EXPECT_EQ(session.model_settings("a").model.source, "a.onnx");
  EXPECT_EQ(p.disk.read(file), "damaged") << "a status or a dry run writes nothing";
  p.disk.put(file.string(), stored);
}

TEST(BuildSession, IntactContextsAreReadOnceAndANoOpBuildReadsThemNever) {
  Project p;
  p.build();
  const std::string file = test::FakeDisk::key(p.state(pipeline::kContextsFile));
  EXPECT_EQ(p.disk.reads[file], 0) << "the session that made the plan has its contexts in memory";
  p.build();
  EXPECT_EQ(p.disk.reads[file], 0) << "nothing ran and no report was written";
  {
    pipeline::BuildSession session(p.options(), p.registry);
    ASSERT_TRUE(session.open());
    const auto& g = session.plan().graph;
    session.declared_context(g.nodes[g.find("a", "optimize")]);
    session.model_settings("b");
    EXPECT_EQ(p.disk.reads[file], 1);
  }
  EXPECT_EQ(p.config_reads(), 1);
}

TEST(BuildSession, ANodeOfAnotherPlanHasNoDeclaredContext) {
  Project p;
  pipeline::BuildSession session(p.options(), p.registry);
  ASSERT_TRUE(session.open());
  graph::Node stranger;
  stranger.model = "c";
  stranger.name = "quantize";
  EXPECT_THROW(session.declared_context(stranger), BuildError);
  EXPECT_THROW(session.model_settings("c"), BuildError);
}

// clean goes through the session's disk: on the fake one it removes the
// recorded files, keeps a file it did not write and the folder holding it,
// and removes a folder left empty.
TEST(BuildSession, CleanRemovesTheRecordedFilesAndEmptyFoldersOnTheSessionsDisk) {
  Project p;
  p.build();
  const fs::path a = p.dir / "build" / "a", b = p.dir / "build" / "b";
  p.disk.put((a / "notes.txt").string(), "the user's");
  pipeline::BuildSession session(p.options(), p.registry);
  ASSERT_TRUE(session.open());
  const auto cleaned = pipeline::clean_models(session, {});
  ASSERT_EQ(cleaned.size(), 2u);
  EXPECT_EQ(cleaned[0].name, "a");
  EXPECT_GT(cleaned[0].files, 0u);
  EXPECT_GT(cleaned[0].bytes, 0u);
  EXPECT_FALSE(cleaned[0].dir_removed);
  EXPECT_EQ(cleaned[0].others, (std::vector<std::string>{"notes.txt"}));
  EXPECT_TRUE(cleaned[1].dir_removed);
  EXPECT_EQ(p.disk.list_dir(a).size(), 1u);
  EXPECT_FALSE(p.disk.stat(to_utf8(b)).exists);
}

// Models no longer configured, found through the session's disk: one the
// records know, and a folder with a manifest but no records.
TEST(BuildSession, DeadModelsAreTheRecordedOnesAndManifestFoldersOnTheSessionsDisk) {
  Project p;
  p.build();
  p.config("[[model]]\nsource = \"a.onnx\"\n");
  p.disk.put((p.dir / "build" / "old" / pipeline::kManifestFile).string(), "{}");
  p.disk.put((p.dir / "build" / "mine" / "notes.txt").string(), "no manifest: not a model's folder");
  pipeline::BuildSession session(p.options(false), p.registry);
  ASSERT_TRUE(session.open());
  const auto dead = pipeline::dead_models(session);
  ASSERT_EQ(dead.size(), 2u);
  EXPECT_EQ(dead[0].name, "b");
  EXPECT_TRUE(dead[0].recorded);
  EXPECT_GT(dead[0].files, 0u);
  EXPECT_EQ(dead[1].name, "old");
  EXPECT_FALSE(dead[1].recorded);
}

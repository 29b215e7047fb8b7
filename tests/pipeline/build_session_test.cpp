// A build session in process, on the fake disk: the plan it makes and
// stores, the stored plan the next session reuses without reading the
// configuration, and the reports it writes at the end of a build that fake
// stages ran.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "graph/builder.h"
#include "pipeline/build_session.h"
#include "pipeline/layout.h"
#include "pipeline/registry.h"
#include "support/fake_disk.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

// A stage that declares a few config keys; builds never call it here (the
// builder runs nodes through FakeNodes).
class DeclaringStage : public pipeline::Stage {
 public:
  explicit DeclaringStage(std::vector<std::string> keys) : keys_(std::move(keys)) {}
  std::string implementation() const override { return "declaring"; }
  pipeline::Declarations declare(const config::ModelSettings&) const override { return {.config = keys_}; }
  pipeline::StageResult run(const pipeline::StageContext&) override { return {}; }

 private:
  std::vector<std::string> keys_;
};

// Imports [model] source: the model file is its input.
class FakeImport : public DeclaringStage {
 public:
  FakeImport() : DeclaringStage({"model.source"}) {}
  pipeline::Declarations declare(const config::ModelSettings& c) const override {
    return {.config = {"model.source"}, .files = {{graph::InputKind::kModel, c.model.source}}};
  }
};

// Each node writes its id into its primary output, on the fake disk.
class FakeNodes : public graph::NodeRunner {
 public:
  explicit FakeNodes(store::DiskInterface& disk) : disk_(disk) {}
  graph::RunResult run(const graph::RunRequest& req) override {
    disk_.write_atomic(req.staging_dir / req.node.primary_output, req.node.id());
    return {};
  }

 private:
  store::DiskInterface& disk_;
};

struct Project {
  test::FakeDisk disk;
  pipeline::StageRegistry registry;
  fs::path dir = "/work/project";

  Project() {
    registry.set("import", std::make_shared<FakeImport>());
    registry.set("optimize", std::make_shared<DeclaringStage>(std::vector<std::string>{"optimize"}));
    registry.set("analyze", std::make_shared<DeclaringStage>(std::vector<std::string>{"compile.ep"}));
    registry.set("quantize", std::make_shared<DeclaringStage>(std::vector<std::string>{"quantize"}));
    registry.set("compile", std::make_shared<DeclaringStage>(std::vector<std::string>{"compile.ep"}));
    registry.set("package", std::make_shared<DeclaringStage>(std::vector<std::string>{}));
    disk.put((dir / "winml.toml").string(), "[[model]]\nsource = \"a.onnx\"\n[[model]]\nsource = \"b.onnx\"\n");
    disk.put((dir / "a.onnx").string(), "model a");
    disk.put((dir / "b.onnx").string(), "model b");
  }
  pipeline::BuildSessionOptions options(bool write = true) {
    return {.source = {.project_dir = dir, .config_file = dir / "winml.toml"},
            .write = write,
            .disk = &disk,
            .take_lock = false};
  }
  int config_reads() { return disk.reads[(dir / "winml.toml").string()]; }
  fs::path state(const std::string& file) { return dir / "build" / pipeline::kStateDir / file; }

  // Opens a session, builds every model with FakeNodes, finishes.
  std::vector<graph::NodeResult> build() {
    pipeline::BuildSession session(options(), registry);
    EXPECT_TRUE(session.open());
    const auto& plan = session.plan();
    FakeNodes runner(disk);
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
    EXPECT_TRUE(p.disk.stat(p.state("plan").native()).exists);
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
  EXPECT_FALSE(p.disk.stat((p.dir / "build").native()).exists);
}

TEST(BuildSession, AnOutputDirectoryHoldingTheProjectIsRefused) {
  Project p;
  auto o = p.options();
  o.source.output_dir_override = "/work";
  pipeline::BuildSession session(o, p.registry);
  EXPECT_THROW(session.open(), InputError);
  EXPECT_TRUE(p.disk.list_files("/work/build").empty());
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

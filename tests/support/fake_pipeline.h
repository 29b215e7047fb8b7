// A project on the fake disk (fake_disk.h) with fake stages: what the
// session and build tests of tests/pipeline/ run in process. The stages
// only declare config keys (the plan and its stored contexts come from
// those); nodes are run by FakeNodes, which writes through the same disk.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "graph/runner.h"
#include "pipeline/build_session.h"
#include "pipeline/layout.h"
#include "pipeline/registry.h"
#include "pipeline/stage.h"
#include "support/fake_disk.h"

namespace winml::test {

// A stage that declares a few config keys; builds never call it (the
// builder runs nodes through a NodeRunner).
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

// Every stage kind a plan needs, each declaring a little.
inline void register_fake_stages(pipeline::StageRegistry& registry, bool with_analyze = true) {
  registry.set("import", std::make_shared<FakeImport>());
  registry.set("optimize", std::make_shared<DeclaringStage>(std::vector<std::string>{"optimize"}));
  if (with_analyze)
    registry.set("analyze", std::make_shared<DeclaringStage>(std::vector<std::string>{"compile.ep"}));
  registry.set("quantize", std::make_shared<DeclaringStage>(std::vector<std::string>{"quantize"}));
  registry.set("compile", std::make_shared<DeclaringStage>(std::vector<std::string>{"compile.ep"}));
  registry.set("package", std::make_shared<DeclaringStage>(std::vector<std::string>{}));
}

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

// Two models, a.onnx and b.onnx, in /fake/project on a fake disk.
struct FakeProject {
  FakeDisk disk;
  pipeline::StageRegistry registry;
  std::filesystem::path dir = "/fake/project";

  FakeProject() {
    register_fake_stages(registry);
    config("[[model]]\nsource = \"a.onnx\"\n[[model]]\nsource = \"b.onnx\"\n");
    disk.put((dir / "a.onnx").string(), "model a");
    disk.put((dir / "b.onnx").string(), "model b");
  }
  void config(const std::string& toml) { disk.put((dir / "winml.toml").string(), toml); }
  pipeline::BuildSessionOptions options(bool write = true) {
    return {.source = {.project_dir = dir, .config_file = dir / "winml.toml"},
            .write = write,
            .disk = &disk,
            .take_lock = false};
  }
  int config_reads() { return disk.reads[FakeDisk::key(dir / "winml.toml")]; }
  std::filesystem::path state(const std::string& file) { return dir / "build" / pipeline::kStateDir / file; }
};

}  // namespace winml::test

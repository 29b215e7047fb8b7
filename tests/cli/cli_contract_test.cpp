// The stage contract through the real CLI: a stage sees only what its key
// holds, so after an edit the incremental build leaves exactly what a clean
// build of the same project leaves. The two stale builds this once allowed
// are the first two tests.
#include <gtest/gtest.h>

#include "support/project.h"
#include "model/model_io.h"
#include "support/model_builder.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

// y = x + Expand(0.5, [1, n]) + Expand(0.25, ..) + Expand(0.125, ..):
// export.onnx is a few hundred bytes; constant folding turns each Expand into
// an n-float initializer (each under the folder's growth limit), so
// optimized.onnx grows past 2 MiB for n = 200 000.
void write_folding_model(Project& p, const std::string& file, std::int64_t n = 200000) {
  test::GraphBuilder g;
  g.input("x", {1, n}).output("y", {1, n});
  g.initializer_i64("shape", {2}, {1, n});
  std::string sum = "x";
  for (float v : {0.5f, 0.25f, 0.125f}) {
    const std::string c = "c" + std::to_string(static_cast<int>(v * 1000));
    g.initializer(c, {1}, {v});
    g.node("Expand", {c, "shape"}, {c + "_big"});
    const std::string out = v == 0.125f ? "y" : "sum_" + c;
    g.node("Add", {sum, c + "_big"}, {out});
    sum = out;
  }
  p.write(file, model::serialize_deterministic(test::make_model(g.graph())));
}

// Builds a copy of the project from nothing (own output dir and cache) and
// expects the same artifacts, file by file (the run-specific manifest aside).
void expect_same_as_clean_build(const Project& p) {
  test::TempDir clean;
  p.clone_to(clean / "project");
  auto r = test::run_cli({"--no-cache", "--json"}, clean / "project");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::artifacts(p.root() / "build"), test::artifacts(clean / "project" / "build"));
}

std::vector<std::string> ran(const nlohmann::json& report, const std::string& model) {
  auto v = test::stages_with(report, model, "completed");
  auto c = test::stages_with(report, model, "cached");
  v.insert(v.end(), c.begin(), c.end());
  return v;
}

}  // namespace

TEST(StageContract, LoweringTheThresholdBelowTheOptimizedSizeRewritesOptimized) {
  Project p;
  write_folding_model(p, "net.onnx");
  p.write_config(
      "[build]\nexternal_data_threshold_mib = 3\n[model]\nsource = \"net.onnx\"\nquantize = false\n"
      "compile = false\n");
  p.build();
  ASSERT_GT(fs::file_size(p.out("net", "optimized.onnx")), 2u << 20);
  ASSERT_FALSE(fs::exists(p.out("net", "optimized.onnx.data")));
  ASSERT_LT(fs::file_size(p.out("net", "export.onnx")), 1u << 20);

  p.write_config(
      "[build]\nexternal_data_threshold_mib = 2\n[model]\nsource = \"net.onnx\"\nquantize = false\n"
      "compile = false\n");
  auto r = p.build({"--explain"});
  EXPECT_TRUE(fs::exists(p.out("net", "optimized.onnx.data"))) << r.dump();
  EXPECT_TRUE(fs::exists(p.out("net", "model.onnx.data"))) << r.dump();
  EXPECT_EQ(test::statuses(r)["net/optimize"], "completed");
  // The explanation names the declaration that changed.
  EXPECT_NE(r.dump().find("config build.external_data_threshold_mib: 3 -> 2"), std::string::npos) << r.dump();
  expect_same_as_clean_build(p);
}

TEST(StageContract, EditingThePresetsOverlayUnderAutoRerunsOptimize) {
  Project p;
  write_folding_model(p, "net.onnx", 16);
  p.write_config("[build]\nauto = true\n[model]\nsource = \"net.onnx\"\nquantize = false\ncompile = false\n");
  p.build();
  // A project overlay of presets.toml whose basic level no longer folds constants.
  std::string presets = test::read_text(test::source_dir() / "rules" / "optimize" / "presets.toml");
  const std::string fold = "  \"fold_constants\",\n";
  ASSERT_NE(presets.find(fold), std::string::npos);
  presets.erase(presets.find(fold), fold.size());
  p.write("rules/optimize/presets.toml", presets);
  auto r = p.build({"--explain"});
  EXPECT_EQ(ran(r, "net"), (std::vector<std::string>{"optimize", "analyze", "package"})) << r.dump();
  const std::string explained = r.dump();
  EXPECT_NE(explained.find("rules optimize/presets.toml"), std::string::npos) << explained;
  expect_same_as_clean_build(p);
}

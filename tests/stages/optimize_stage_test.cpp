// The analyze and optimize stages inside a real build: the auto loop, the
// recorded flags, replay, and exactly-configured passes without auto.
#include <gtest/gtest.h>

#include "support/project.h"
#include "model/model_io.h"
#include "support/model_builder.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

// x -> decomposed LayerNorm -> decomposed GELU -> Identity -> y (opset 17).
void write_transformer_block(Project& p) {
  test::GraphBuilder b;
  b.input("x", {4, 8});
  b.initializer("two", {}, {2.0f});
  b.initializer("eps", {}, {1e-5f});
  b.initializer("gamma", {8}, test::random_floats(8, 1));
  b.initializer("beta", {8}, test::random_floats(8, 2));
  b.initializer("sqrt2", {}, {1.4142135f});
  b.initializer("one", {}, {1.0f});
  b.initializer("half", {}, {0.5f});
  auto& m1 = b.node("ReduceMean", {"x"}, {"mean"});
  test::set_attr(m1, "axes", std::vector<std::int64_t>{-1});
  b.node("Sub", {"x", "mean"}, {"d"});
  b.node("Pow", {"d", "two"}, {"sq"});
  auto& m2 = b.node("ReduceMean", {"sq"}, {"var"});
  test::set_attr(m2, "axes", std::vector<std::int64_t>{-1});
  b.node("Add", {"var", "eps"}, {"ve"});
  b.node("Sqrt", {"ve"}, {"std"});
  b.node("Div", {"d", "std"}, {"n"});
  b.node("Mul", {"n", "gamma"}, {"g"});
  b.node("Add", {"g", "beta"}, {"h"});
  b.node("Div", {"h", "sqrt2"}, {"t"});
  b.node("Erf", {"t"}, {"e"});
  b.node("Add", {"e", "one"}, {"a"});
  b.node("Mul", {"h", "a"}, {"m"});
  b.node("Mul", {"m", "half"}, {"gelu"});
  b.node("Identity", {"gelu"}, {"y"});
  b.output("y", {4, 8});
  p.write("block.onnx", model::serialize_deterministic(test::make_model(b.graph(), 17)));
}

std::map<std::string, int> ops_of(const fs::path& model_file) {
  std::map<std::string, int> ops;
  model::Model m = model::load_model(model_file);
  for (const auto& n : m.proto.graph().node()) ++ops[(n.domain().empty() ? "" : n.domain() + ":") + n.op_type()];
  return ops;
}

nlohmann::json stage(const nlohmann::json& manifest, const std::string& name) {
  for (const auto& s : manifest["stages"])
    if (s["name"] == name) return s;
  return nullptr;
}

}  // namespace

TEST(OptimizeStage, AutoDiscoversFlagsTheTargetEpBenefitsFromAndReplays) {
  Project p;
  write_transformer_block(p);
  p.write_config(R"([model]
source = "block.onnx"
[build]
auto = true
[optimize]
level = "basic"
[compile]
ep = "cpu"
)");
  p.build();
  auto manifest = nlohmann::json::parse(test::read_text(p.out("block", "build_manifest.json")));
  EXPECT_GE(manifest["analyze_iterations"].get<int>(), 1);
  auto opt = stage(manifest, "optimize");
  EXPECT_EQ(opt["discovered_flags"], (nlohmann::json{{"fuse_gelu", true}, {"fuse_layer_norm", true}}));
  EXPECT_NE(opt["implementation"].get<std::string>().find("winml-optimize"), std::string::npos);
  auto ops = ops_of(p.out("block", "optimized.onnx"));
  EXPECT_EQ(ops, (std::map<std::string, int>{{"LayerNormalization", 1}, {"com.microsoft:Gelu", 1}}));

  // analyze_result.json describes optimized.onnx, reproducibly (no timestamp, no absolute path).
  auto analysis = nlohmann::json::parse(test::read_text(p.out("block", "analyze_result.json")));
  EXPECT_FALSE(analysis.contains("analysis_timestamp"));
  EXPECT_EQ(analysis["metadata"]["model_path"], "optimized.onnx");
  EXPECT_EQ(analysis["metadata"]["detected_pattern_count"], 0);

  // The recorded config has the flags and auto = false; replaying it gives the same bytes.
  auto recorded = nlohmann::json::parse(test::read_text(p.out("block", "winml_build_config.json")));
  EXPECT_EQ(recorded["build"]["auto"], false);
  EXPECT_EQ(recorded["optimize"]["fuse_gelu"], true);
  EXPECT_EQ(recorded["optimize"]["fuse_layer_norm"], true);
  auto r = p.run({"-c", p.out("block", "winml_build_config.json").string(), "-o", "replayed", "--no-cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_text(p.root() / "replayed" / "block" / "optimized.onnx"),
            test::read_text(p.out("block", "optimized.onnx")));
}

TEST(OptimizeStage, WithoutAutoRunsExactlyTheConfiguredPasses) {
  Project p;
  write_transformer_block(p);
  p.write_config(R"([model]
source = "block.onnx"
[optimize]
level = "basic"
[compile]
ep = "cpu"
)");
  p.build();
  auto ops = ops_of(p.out("block", "optimized.onnx"));
  EXPECT_EQ(ops.count("LayerNormalization"), 0u);
  EXPECT_EQ(ops.count("Identity"), 0u) << "basic removes the Identity";
  auto analysis = nlohmann::json::parse(test::read_text(p.out("block", "analyze_result.json")));
  std::set<std::string> kinds;
  for (const auto& pat : analysis["patterns"]) kinds.insert(pat["kind"]);
  EXPECT_EQ(kinds, (std::set<std::string>{"gelu_erf", "layer_norm"}));
  auto manifest = nlohmann::json::parse(test::read_text(p.out("block", "build_manifest.json")));
  EXPECT_EQ(stage(manifest, "analyze")["discovered_flags"],
            (nlohmann::json{{"fuse_gelu", true}, {"fuse_layer_norm", true}}));
  EXPECT_EQ(manifest["analyze_iterations"], 0);
}

TEST(OptimizeStage, RefusesACompiledModelAsSource) {
  Project p;
  p.write("compiled.onnx", model::serialize_deterministic(test::epcontext_model("QNNExecutionProvider", 1, "b")));
  p.write_config("[model]\nsource = \"compiled.onnx\"\n");
  auto r = p.run({});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  // The build reports the failed stage on stdout; exit 2 marks bad input.
  EXPECT_NE((r.out + r.err)
                .find("Input model is a compiled EPContext artifact (EPContext nodes from QNNExecutionProvider) "
                      "and cannot be re-optimized. Run optimize on the original ONNX model before compilation."),
            std::string::npos)
      << "stdout:\n"
      << r.out << "\nstderr:\n"
      << r.err;
  EXPECT_FALSE(fs::exists(p.out("compiled", "optimized.onnx")));
}

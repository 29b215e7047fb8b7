// `winml-make optimize` through the real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/model_io.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {
// x -> Identity -> MatMul -> Add(bias) -> Relu -> y
std::string write_model(const test::TempDir& dir) {
  auto m = test::linear_model(8, 4);
  auto* id = m.mutable_graph()->add_node();
  id->set_op_type("Identity");
  id->set_name("id");
  id->add_input("x");
  id->add_output("x_id");
  m.mutable_graph()->mutable_node(0)->set_input(0, "x_id");
  auto path = (dir / "in.onnx").string();
  test::write_text(path, model::serialize_deterministic(m));
  return path;
}
}  // namespace

TEST(OptimizeCli, WritesTheOptimizedModelAndAReport) {
  test::TempDir dir;
  auto in = write_model(dir);
  auto r = test::run_cli({"optimize", "-m", in, "-o", (dir / "out.onnx").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["nodes_before"], 4);
  EXPECT_EQ(report["nodes_after"], 2) << "Identity removed, MatMul + Add fused into Gemm";
  EXPECT_EQ(report["rewrites"]["eliminate_identity"], 1);
  EXPECT_TRUE(report["fixed_point"]);
  auto out = model::load_model(dir / "out.onnx");
  EXPECT_EQ(out.proto.graph().node_size(), 2);
  // Deterministic bytes.
  ASSERT_EQ(test::run_cli({"optimize", "-m", in, "-o", (dir / "again.onnx").string()}).exit_code, 0);
  EXPECT_EQ(test::read_text(dir / "out.onnx"), test::read_text(dir / "again.onnx"));
}

TEST(OptimizeCli, PassFlagsInBothSpellings) {
  test::TempDir dir;
  auto in = write_model(dir);
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--disable-eliminate_identity"}, {"--disable", "eliminate_identity"}}) {
    std::vector<std::string> cmd = {"optimize", "-m", in, "-o", (dir / "out.onnx").string(), "--json"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    auto r = test::run_cli(cmd);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["nodes_after"], 3) << args[0] << ": Identity kept";
  }
  auto r = test::run_cli({"optimize", "-m", in, "-o", (dir / "o.onnx").string(), "--level", "none",
                          "--enable-eliminate_identity", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["passes"], nlohmann::json{"eliminate_identity"});
}

TEST(OptimizeCli, UnknownPassOrLevelExitsTwoAndWritesNothing) {
  test::TempDir dir;
  auto in = write_model(dir);
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--enable-fuse_everything"}, {"--disable", "nope"}, {"--level", "max"}, {"--frobnicate"}}) {
    std::vector<std::string> cmd = {"optimize", "-m", in, "-o", (dir / "out.onnx").string()};
    cmd.insert(cmd.end(), extra.begin(), extra.end());
    auto r = test::run_cli(cmd);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.onnx"));
  }
}

TEST(OptimizeCli, RefusesEpContextModelsWithExitTwoAndWritesNothing) {
  test::TempDir dir;
  test::write_text(dir / "compiled.onnx",
                   model::serialize_deterministic(test::epcontext_model("QNNExecutionProvider", 1, "blob")));
  auto r = test::run_cli({"optimize", "-m", (dir / "compiled.onnx").string(), "-o", (dir / "out.onnx").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.first_error_line().find(
                (dir / "compiled.onnx").string() +
                ": Input model is a compiled EPContext artifact (EPContext nodes from QNNExecutionProvider) and "
                "cannot be re-optimized. Run optimize on the original ONNX model before compilation."),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "out.onnx"));
}

TEST(OptimizeCli, RefusesACompiledModelEvenWhenItsBlobIsMissing) {
  test::TempDir dir;
  test::write_text(dir / "compiled.onnx",
                   model::serialize_deterministic(test::epcontext_model("ref", 0, "missing_ref.bin")));
  auto r = test::run_cli({"optimize", "-m", (dir / "compiled.onnx").string(), "-o", (dir / "out.onnx").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.first_error_line().find("Input model is a compiled EPContext artifact (EPContext nodes from ref)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "out.onnx"));
}

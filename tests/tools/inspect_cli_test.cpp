// `winml-make inspect` through the real binary: output and exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/path_text.h"
#include "model/model_io.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

TEST(InspectCli, ReportsModelAsJson) {
  test::TempDir dir;
  model::Model m;
  m.proto = test::linear_model(256, 128);
  m.path = dir / "m.onnx";
  model::SaveOptions opts;
  opts.external = model::ExternalData::kAlways;
  model::save_model(m, dir / "m.onnx", opts);

  auto r = test::run_cli({"inspect", "-m", (dir / "m.onnx").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ir_version"], 8);
  EXPECT_EQ(j["opsets"]["ai.onnx"], 17);
  EXPECT_EQ(j["node_count"], 3);
  EXPECT_EQ(j["op_counts"]["MatMul"], 1);
  EXPECT_EQ(j["inputs"][0]["shape"][0], "batch");
  EXPECT_EQ(j["initializer_bytes"], (256 * 128 + 128) * 4);
  EXPECT_EQ(j["external_data"][0]["location"], "m.onnx.data");
  EXPECT_FALSE(j["is_epcontext_model"]);
}

TEST(InspectCli, ReportsEpContextNodes) {
  test::TempDir dir;
  test::write_text(dir / "c_ref.bin", "0123456789");
  test::write_text(dir / "c.onnx", model::serialize_deterministic(test::epcontext_model("ref", 0, "c_ref.bin")));
  auto r = test::run_cli({"inspect", "-m", (dir / "c.onnx").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("EPContext:    ctx_0 source=ref embed_mode=0 blob=c_ref.bin (10 B)"), std::string::npos)
      << r.out;
}

TEST(InspectCli, UnreadableModelExitsTwoNamingTheFile) {
  test::TempDir dir;
  for (const auto& [name, bytes] :
       std::vector<std::pair<std::string, std::string>>{{"empty.onnx", ""}, {"text.onnx", "this is not a model\n"}}) {
    test::write_text(dir / name, bytes);
    auto r = test::run_cli({"inspect", "-m", (dir / name).string()});
    EXPECT_EQ(r.exit_code, 2) << name;
    EXPECT_NE(r.first_error_line().find(to_utf8(dir / name)), std::string::npos) << r.err;
  }
  auto r = test::run_cli({"inspect", "-m", (dir / "absent.onnx").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.first_error_line().find("absent.onnx"), std::string::npos) << r.err;
}

TEST(InspectCli, UsageErrorsExitTwo) {
  EXPECT_EQ(test::run_cli({"inspect"}).exit_code, 2);
  EXPECT_EQ(test::run_cli({"--no-such-flag"}).exit_code, 2);
  auto v = test::run_cli({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("winml-make ", 0), 0u);
  EXPECT_EQ(test::run_cli({"--help"}).exit_code, 0);
}

TEST(InspectCli, MissingSidecarOfABareFileNameIsReportedAsMissing) {
  test::TempDir dir;
  {
    // (A saved model keeps its sidecar mapped: released before the sidecar
    // is removed, which Windows does only once no process maps it.)
    model::Model m;
    m.proto = test::linear_model(64, 32);
    model::SaveOptions opts;
    opts.external = model::ExternalData::kAlways;
    model::save_model(m, dir / "m.onnx", opts);
  }
  ASSERT_TRUE(fs::remove(dir / "m.onnx.data"));
  ASSERT_FALSE(fs::exists(dir / "m.onnx.data"));
  // Relative to the working directory, without "./": the same message as with a full path.
  auto r = test::run_cli({"inspect", "-m", "m.onnx"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("external data file 'm.onnx.data' is missing"), std::string::npos) << r.err;
}

// Config errors through the real binary: exit code 2, first line names file:line:column.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;

TEST(ConfigCli, PrintsResolvedConfigWithDashC) {
  test::TempDir dir;
  test::write_text(dir / "proj" / "winml.toml", "[model]\nsource = \"net.onnx\"\n");
  auto r = test::run_cli({"-C", (dir / "proj").string(), "config"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["net"]["model"]["source"], "net.onnx");
  // -C may follow the subcommand too.
  auto after = test::run_cli({"config", "-C", (dir / "proj").string()});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out, r.out);
}

TEST(ConfigCli, BadConfigExitsTwoWithLocation) {
  test::TempDir dir;
  test::write_text(dir / "winml.toml", "[model]\nsource = \"m.onnx\"\n[build]\noutput_dri = \"out\"\n");
  auto r = test::run_cli({"config"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.first_error_line().find("winml.toml:4:1: unknown key 'build.output_dri' (did you mean 'build.output_dir'?)"),
      std::string::npos)
      << r.err;
}

TEST(ConfigCli, MissingProjectFileExitsTwo) {
  test::TempDir dir;
  auto r = test::run_cli({"config"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.first_error_line().find("winml.toml: no such file"), std::string::npos) << r.err;
}

// The records keep the history of a stage a build skipped, and reasons name
// what the user did: the flag or the line that disabled a stage, the stage
// enabled again, the key they edited rather than one computed from it.
#include <gtest/gtest.h>

#include "support/project.h"

using namespace winml;
using test::Project;

namespace {

std::string reason_of(const nlohmann::json& report, const std::string& stage) {
  for (const auto& m : report["models"])
    for (const auto& s : m["stages"])
      if (s["name"] == stage) return s.value("reason", "");
  return "<no " + stage + ">";
}

}  // namespace

TEST(DisabledHistory, NoQuantIsToldWhenItTakesEffectAndUndoneFromTheCache) {
  Project p;
  p.write_small_project();
  p.build();
  ASSERT_TRUE(std::filesystem::exists(p.out("net", "quantized.onnx")));
  // Before: a dry run says quantize will be skipped, and by what.
  auto preview = p.run({"-n", "--explain", "--no-quant"});
  EXPECT_EQ(preview.exit_code, 0) << preview.err;
  EXPECT_NE(preview.out.find("  skipped    net/quantize: disabled by --no-quant"), std::string::npos) << preview.out;
  EXPECT_TRUE(std::filesystem::exists(p.out("net", "quantized.onnx")));
  // status names the flag, not the config.
  auto status = p.run({"status", "--no-quant"});
  EXPECT_NE(status.out.find("  quantize  skipped: disabled by --no-quant"), std::string::npos) << status.out;
  EXPECT_EQ(status.out.find("disabled in config"), std::string::npos) << status.out;
  // The build says it, and removes quantized.onnx.
  auto skipped = p.run({"--no-quant"});
  EXPECT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_NE(skipped.out.find("  skipped    net/quantize: disabled by --no-quant"), std::string::npos) << skipped.out;
  EXPECT_FALSE(std::filesystem::exists(p.out("net", "quantized.onnx")));
  // Skipped again: nothing new to say.
  auto again = p.run({"--no-quant"});
  EXPECT_EQ(again.out.find("net/quantize"), std::string::npos) << again.out;
  // Enabled again: not "never built"; its key is unchanged, so the cache has it.
  auto status_back = p.run({"status"});
  EXPECT_NE(status_back.out.find("  quantize  would run: enabled again (skipped by the last build)"), std::string::npos)
      << status_back.out;
  auto back = p.build();
  EXPECT_EQ(test::statuses(back)["net/quantize"], "cached");
  EXPECT_EQ(reason_of(back, "quantize"), "enabled again (skipped by the last build)");
  EXPECT_EQ(back["_stderr"].get<std::string>().find("never built"), std::string::npos) << back["_stderr"];
  EXPECT_TRUE(std::filesystem::exists(p.out("net", "quantized.onnx")));
}

TEST(DisabledHistory, AStageDisabledInTheFileNamesItsLineAndADefineNamesItself) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config("quantize = false\n[model]\nsource = \"net.onnx\"\n[compile]\nenabled = false\n");
  auto report = p.build();
  EXPECT_EQ(reason_of(report, "quantize"), "disabled in winml.toml:1 (quantize.enabled = false)");
  EXPECT_EQ(reason_of(report, "compile"), "disabled in winml.toml:5 (compile.enabled = false)");
  p.write_small_project();
  report = p.build({"-D", "quantize.enabled=false"});
  EXPECT_EQ(reason_of(report, "quantize"), "disabled by -D quantize.enabled=false");
}

// weight_type int8 -> uint8 also changes weight_symmetric, whose default
// follows it: the reason names the key the user edited.
TEST(DisabledHistory, TheReasonNamesTheEditedKeyNotOneComputedFromIt) {
  Project p;
  p.write_small_project("[quantize]\nweight_type = \"int8\"\n");
  p.build();
  p.write_small_project("[quantize]\nweight_type = \"uint8\"\n");
  auto r = p.run({"--explain"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("completed  net/quantize ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("): config quantize.weight_type changed (+1 more)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("config quantize.weight_symmetric changed"), std::string::npos) << r.out;
  // --explain still lists both, the edited one first.
  const auto type = r.out.find("config quantize.weight_type: \"int8\" -> \"uint8\"");
  const auto symmetric = r.out.find("config quantize.weight_symmetric: true -> false");
  ASSERT_NE(type, std::string::npos) << r.out;
  ASSERT_NE(symmetric, std::string::npos) << r.out;
  EXPECT_LT(type, symmetric);
}

// What `-n`, `--explain` and `status` say about why a stage would rerun: the
// setting the user changed, not a side effect of it; a dry run never says
// FAILED, and lists stages after their inputs.
#include <gtest/gtest.h>

#include "support/project.h"

using namespace winml;
using test::Project;

namespace {

const char* kNamedModel = "[model]\nname = \"net\"\nsource = \"net.onnx\"\n";

std::string stage_reason(const nlohmann::json& report, const std::string& stage) {
  for (const auto& s : report["models"][0]["stages"])
    if (s["name"] == stage) return s.value("reason", "");
  return "(no stage " + stage + ")";
}

std::vector<std::string> stage_explanation(const nlohmann::json& report, const std::string& stage) {
  for (const auto& s : report["models"][0]["stages"])
    if (s["name"] == stage && s.contains("explanation")) return s["explanation"].get<std::vector<std::string>>();
  return {};
}

bool any_contains(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(ExplainCli, SwitchingAutoOffNamesTheSettingNotAVanishedKey) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(std::string(kNamedModel) + "[build]\nauto = true\n");
  p.build();
  p.write_config(std::string(kNamedModel) + "[build]\nauto = false\n");
  auto dry = p.build({"-n", "--explain"});
  EXPECT_EQ(stage_reason(dry, "optimize").rfind("config build.auto changed", 0), 0u) << dry.dump(2);
  const auto lines = stage_explanation(dry, "optimize");
  EXPECT_TRUE(any_contains(lines, "config build.auto: true -> false")) << dry.dump(2);
  EXPECT_FALSE(any_contains(lines, "build.auto: no longer used")) << dry.dump(2);
  // The build says the same as its dry run.
  EXPECT_EQ(stage_reason(p.build(), "optimize"), stage_reason(dry, "optimize"));
}

TEST(ExplainCli, SwitchingFromSourceToCommandNamesModelSource) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(kNamedModel);
  p.build();
  p.write("export.sh", "cp net.onnx \"$1\"\n");
  p.write_config(
      "[model]\nname = \"net\"\n[export]\ncommand = [\"sh\", \"export.sh\", \"{output}\"]\n"
      "inputs = [\"export.sh\", \"net.onnx\"]\n");
  auto dry = p.build({"-n", "--explain"});
  const std::string reason = stage_reason(dry, "export");
  EXPECT_EQ(reason.rfind("config model.source changed (+", 0), 0u) << reason;
  const auto lines = stage_explanation(dry, "export");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().rfind("config model.source: \"net.onnx\" -> \"\"", 0), 0u) << lines.front();
}

TEST(ExplainCli, ADryRunNamesAStagesOwnChangeBehindAStaleInput) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(std::string(kNamedModel) + "[compile]\nep = \"ref\"\n");
  p.build();
  // compile.ep enters optimize (its EP table) and compile: optimize reruns,
  // and compile would rerun for its own settings whatever optimize writes
  // (the EP and the backend it resolves to: ref -> prepare).
  p.write_config(std::string(kNamedModel) + "[compile]\nep = \"cpu\"\n");
  auto dry = p.build({"-n", "--explain"});
  EXPECT_EQ(stage_reason(dry, "optimize").rfind("config compile.ep changed", 0), 0u) << dry.dump(2);
  // (Its EP's rules file and the backend resolved from it changed with it:
  // "+N more"; the reason names the key the user edited.)
  const std::string compile = stage_reason(dry, "compile");
  EXPECT_EQ(compile.rfind("config compile.ep changed (+", 0), 0u) << compile;
  EXPECT_TRUE(compile.ends_with("; an input will be rebuilt too")) << compile;
  EXPECT_TRUE(any_contains(stage_explanation(dry, "compile"), "config compile.ep: \"ref\" -> \"cpu\"")) << dry.dump(2);
  EXPECT_TRUE(any_contains(stage_explanation(dry, "compile"), "config compile.backend: \"ref\" -> \"prepare\""))
      << dry.dump(2);
  // A stage with nothing of its own changed still says only that.
  EXPECT_EQ(stage_reason(dry, "package"), "an input will be rebuilt (reruns only if its content changes)");
  auto status = p.run({"status"});
  EXPECT_NE(status.out.find("compile   would run: " + compile), std::string::npos) << status.out;
  auto built = p.build();
  EXPECT_EQ(stage_reason(built, "compile").rfind("config compile.ep changed", 0), 0u) << built.dump(2);
}

TEST(ExplainCli, AStagesOwnChangeBehindAStaleInputShowsItsValuesIntact) {
  // Long values (heap-allocated strings) of a stage whose input will be
  // rebuilt too: the explanation once read them from freed lists.
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(std::string(kNamedModel) + "[compile]\nep = \"ref\"\n");
  p.build();
  p.write_config(std::string(kNamedModel) +
                 "[quantize]\nsamples = 3\n[compile]\nep = \"ref\"\nenv = [\"A_RATHER_LONG_VARIABLE_NAME\"]\n");
  auto dry = p.build({"-n", "--explain"});
  EXPECT_TRUE(any_contains(stage_explanation(dry, "compile"),
                           "config compile.env: [] -> [\"A_RATHER_LONG_VARIABLE_NAME\"] (digest "))
      << dry.dump(2);
}

TEST(ExplainCli, ADryRunWithAMissingSourceSaysWouldFailInStageOrder) {
  Project p;
  p.write_config(kNamedModel);  // net.onnx does not exist
  auto r = p.run({"-n", "-j", "4"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out.find("FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would fail net/export: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 would fail"), std::string::npos) << r.out;
  std::size_t at = 0;
  for (const char* stage :
       {"net/export", "net/optimize", "net/analyze", "net/quantize", "net/compile", "net/package"}) {
    const auto next = r.out.find(stage, at);
    ASSERT_NE(next, std::string::npos) << stage << " after offset " << at << " in:\n" << r.out;
    at = next;
  }
  EXPECT_NE(r.out.find("not run    net/optimize: not started: net/export would fail"), std::string::npos) << r.out;
}

TEST(ExplainCli, LinesOfEachModelComeInStageOrderWithParallelJobs) {
  Project p;
  std::string config = "[compile]\nenabled = false\n";
  for (int m = 0; m < 4; ++m) {
    p.write_model("m" + std::to_string(m) + ".onnx", m + 1);
    config += "[[model]]\nname = \"m" + std::to_string(m) + "\"\nsource = \"m" + std::to_string(m) + ".onnx\"\n";
  }
  p.write_config(config);
  // Every model's export fails (not a model), so the rest never runs.
  for (int m = 0; m < 4; ++m) p.write("m" + std::to_string(m) + ".onnx", "not a model");
  for (int run = 0; run < 5; ++run) {
    auto r = p.run({"-k", "-j", "4"});
    for (int m = 0; m < 4; ++m) {
      const std::string model = "m" + std::to_string(m) + "/";
      std::size_t at = 0;
      for (const char* stage : {"export", "optimize", "analyze", "quantize", "package"}) {
        const auto next = r.out.find(model + stage, at);
        ASSERT_NE(next, std::string::npos) << model << stage << " in:\n" << r.out;
        at = next;
      }
    }
  }
}

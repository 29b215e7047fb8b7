// The export command rule, run for real.
#include <gtest/gtest.h>

#include <map>

#include "base/error.h"
#include "base/path_text.h"
#include "base/this_process.h"
#include "export/export_plan.h"
#include "model/model_io.h"
#include "support/model_builder.h"
#include "support/platform.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {
config::ExportConfig command_config(std::vector<std::string> command) {
  config::ExportConfig c;
  c.command = std::move(command);
  return c;
}

// The variables a stage would be given: here, the whole process environment.
std::map<std::string, std::string> process_env() { return environment_variables(); }

// The export command: winml_test_command's steps (support/test_command.cpp),
// the same program on every system.
std::vector<std::string> test_command(std::vector<std::string> steps) {
  steps.insert(steps.begin(), to_utf8(test::test_command()));
  return steps;
}

void write_model(const fs::path& p) {
  model::Model m;
  m.proto = test::linear_model(4, 4);
  m.path = p;
  model::save_model(m, p);
}
}  // namespace

TEST(ExportPlan, InputsExpandSortedAndEnvIsRead) {
  test::TempDir dir;
  test::write_text(dir / "export.py", "x");
  test::write_text(dir / "weights" / "b.pt", "b");
  test::write_text(dir / "weights" / "a.pt", "a");
  auto cfg = command_config({"python3", "export.py", "{output}"});
  cfg.inputs = {"weights/*.pt", "export.py"};
  cfg.env = {"WINML_TEST_EXPORT_VAR"};
  test::ScopedEnvironment env;
  env.set("WINML_TEST_EXPORT_VAR", "value-1");
  auto plan = exporting::plan_export(cfg, dir.path(), "winml.toml", process_env());
  EXPECT_EQ(plan.input_files, (std::vector<std::string>{"export.py", "weights/a.pt", "weights/b.pt"}));
  EXPECT_EQ(plan.env.at("WINML_TEST_EXPORT_VAR"), "value-1");
}

TEST(ExportPlan, BadDeclarationsAreInputErrors) {
  test::TempDir dir;
  auto cfg = command_config({"true"});
  cfg.inputs = {"missing/*.pt"};
  EXPECT_THROW(exporting::plan_export(cfg, dir.path(), "winml.toml", process_env()), InputError);
  cfg.inputs = {"../outside.py"};
  EXPECT_THROW(exporting::plan_export(cfg, dir.path(), "winml.toml", process_env()), InputError);
  cfg.inputs = {};
  cfg.env = {"WINML_TEST_SURELY_UNSET_VARIABLE"};
  EXPECT_THROW(exporting::plan_export(cfg, dir.path(), "winml.toml", process_env()), InputError);
}

TEST(ExportPlan, CommandRunsWithOnlyDeclaredEnvironment) {
  test::TempDir dir;
  write_model(dir / "src.onnx");
  test::ScopedEnvironment variables;
  variables.set("WINML_TEST_PASSED", "yes").set("WINML_TEST_HIDDEN", "no");
  auto cfg = command_config(test_command({"copy", "src.onnx", "{output}", "env", "env.txt", "print", "exported"}));
  cfg.env = {"WINML_TEST_PASSED"};
  auto plan = exporting::plan_export(cfg, dir.path(), "winml.toml", process_env());
  exporting::run_export(plan, dir.path(), dir / "build" / "export.onnx", dir / "build" / "export.log");
  EXPECT_NO_THROW(model::load_model(dir / "build" / "export.onnx"));
  std::string env = test::read_text(dir / "env.txt");
  EXPECT_NE(env.find("WINML_TEST_PASSED=yes"), std::string::npos) << env;
  EXPECT_EQ(env.find("WINML_TEST_HIDDEN"), std::string::npos) << env;
  EXPECT_NE(test::read_text(dir / "build" / "export.log").find("exported"), std::string::npos);
  // No temporary directory is left behind.
  for (const auto& e : fs::directory_iterator(dir / "build"))
    EXPECT_EQ(e.path().filename().string().find(".export"), std::string::npos) << e.path();
}

TEST(ExportPlan, FailureShowsCommandExitCodeAndLogTail) {
  test::TempDir dir;
  auto cfg = command_config(test_command({"print", "line-one", "eprint", "the-real-problem", "exit", "7"}));
  auto plan = exporting::plan_export(cfg, dir.path(), "winml.toml", process_env());
  try {
    exporting::run_export(plan, dir.path(), dir / "build" / "export.onnx", dir / "build" / "export.log");
    FAIL();
  } catch (const BuildError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("exit code 7"), std::string::npos) << msg;
    EXPECT_NE(msg.find("print line-one eprint the-real-problem exit 7"), std::string::npos) << msg;
    EXPECT_NE(msg.find("the-real-problem"), std::string::npos) << msg;
  }
  EXPECT_FALSE(fs::exists(dir / "build" / "export.onnx"));
}

TEST(ExportPlan, MissingOrUnusableOutputIsAFailure) {
  test::TempDir dir;
  auto silent = exporting::plan_export(command_config(test_command({})), dir.path(), "winml.toml", process_env());
  EXPECT_THROW(exporting::run_export(silent, dir.path(), dir / "b" / "export.onnx", dir / "b" / "log"), BuildError);
  auto garbage = exporting::plan_export(command_config(test_command({"write", "{output}", "junk"})), dir.path(),
                                        "winml.toml", process_env());
  EXPECT_THROW(exporting::run_export(garbage, dir.path(), dir / "b" / "export.onnx", dir / "b" / "log"), BuildError);
  EXPECT_FALSE(fs::exists(dir / "b" / "export.onnx"));
}

TEST(ExportPlan, UnknownPlaceholderIsAnInputError) {
  test::TempDir dir;
  auto plan = exporting::plan_export(command_config({"echo", "{outptu}"}), dir.path(), "winml.toml", process_env());
  EXPECT_THROW(exporting::run_export(plan, dir.path(), dir / "b" / "export.onnx", dir / "b" / "log"), InputError);
}

// [export] weights: "DEFAULT" or an enum name is torchvision's pretrained
// weights; anything else is a state_dict file.
TEST(PretrainedWeightsConfig, WhichValuesNameThem) {
  for (const std::string v : {"DEFAULT", "IMAGENET1K_V1", "IMAGENET1K_SWAG_E2E_V1", "V2"})
    EXPECT_TRUE(config::names_pretrained_weights(v)) << v;
  for (const std::string v : {"", "weights.pt", "Default", "IMAGENET1K.V1", "CHECKPOINTS/A", "1K", "_A", "A-B"})
    EXPECT_FALSE(config::names_pretrained_weights(v)) << v;
}

TEST(PretrainedWeightsConfig, TheShippedDataResolvesDefaultAndNamesTheChoices) {
  auto resnet = config::find_pretrained_weights("resnet50", "DEFAULT");
  ASSERT_TRUE(resnet);
  EXPECT_EQ(resnet->name, "IMAGENET1K_V2");
  EXPECT_EQ(resnet->file, "resnet50-11ad3fa6.pth");
  EXPECT_EQ(fs::path(resnet->url).filename(), resnet->file);
  auto v1 = config::find_pretrained_weights("resnet50", "IMAGENET1K_V1");
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->file, "resnet50-0676ba61.pth");

  std::string problem;
  EXPECT_FALSE(config::find_pretrained_weights("resnet50", "IMAGENET1K_V3", &problem));
  EXPECT_NE(problem.find("expected one of: DEFAULT, IMAGENET1K_V1, IMAGENET1K_V2, or a state_dict file's path"),
            std::string::npos)
      << problem;
  EXPECT_FALSE(config::find_pretrained_weights("resnet_fifty", "DEFAULT", &problem));
  EXPECT_NE(problem.find("no pretrained weights for torchvision model 'resnet_fifty'"), std::string::npos) << problem;
  EXPECT_NE(problem.find("resnet50"), std::string::npos) << problem;
}

// The recipe gets the checkpoint the stage declared, and nothing runs without it.
TEST(PretrainedWeightsConfig, ThePlanLoadsTheDeclaredCheckpointAndRefusesAMissingOne) {
  test::TempDir dir;
  config::ExportConfig cfg;
  cfg.torchvision = "squeezenet1_1";
  cfg.weights = "DEFAULT";
  const fs::path checkpoint = dir / "torch" / "hub" / "checkpoints" / "squeezenet1_1-b8a52dc0.pth";
  try {
    exporting::plan_export(cfg, dir.path(), "winml.toml", process_env(), checkpoint);
    FAIL();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(to_utf8(checkpoint) + ": no such file", 0), 0u) << msg;
    EXPECT_NE(msg.find("download https://download.pytorch.org/models/squeezenet1_1-b8a52dc0.pth into " +
                       to_utf8(checkpoint.parent_path()) + "/, or set TORCH_HOME"),
              std::string::npos)
        << msg;
  }
  test::write_text(checkpoint, "a checkpoint");
  const auto plan = exporting::plan_export(cfg, dir.path(), "winml.toml", process_env(), checkpoint);
  const std::vector<std::string> tail(plan.command.end() - 4, plan.command.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"--weights-enum", "IMAGENET1K_V1", "--checkpoint", to_utf8(checkpoint)}));
  EXPECT_TRUE(plan.input_files.empty());  // not a project file
}

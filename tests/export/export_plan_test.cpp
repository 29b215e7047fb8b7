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

// Usage errors name the command being read, what it expected (its choices,
// in the order given) and its own --help, not CLI11's defaults; completion
// offers after a command what that command takes.
#include <gtest/gtest.h>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;

TEST(UsageErrors, AMissingCommandOrArgumentNamesTheCommandItsChoicesAndItsHelp) {
  const auto cache = test::run_cli({"cache"});
  EXPECT_EQ(cache.exit_code, 2);
  EXPECT_NE(cache.err.find("'winml-make cache'"), std::string::npos) << cache.err;
  for (const char* choice : {"stats", "verify", "gc"}) EXPECT_NE(cache.err.find(choice), std::string::npos) << cache.err;
  EXPECT_NE(cache.err.find("winml-make cache --help"), std::string::npos) << cache.err;
  EXPECT_EQ(cache.err.find("Run 'winml-make --help'"), std::string::npos) << cache.err;

  const auto shell = test::run_cli({"completions"});
  EXPECT_EQ(shell.exit_code, 2);
  EXPECT_NE(shell.err.find("'winml-make completions'"), std::string::npos) << shell.err;
  for (const char* choice : {"bash", "zsh", "fish"}) EXPECT_NE(shell.err.find(choice), std::string::npos) << shell.err;
  EXPECT_NE(shell.err.find("winml-make completions --help"), std::string::npos) << shell.err;
}

TEST(UsageErrors, UnexpectedArgumentsComeInTheOrderGivenWithTheCommandsHelp) {
  test::TempDir dir;
  const auto r = test::run_cli({"run", "-m", "x.onnx", "-o", "d"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'winml-make run'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-o d"), std::string::npos) << r.err;  // not "d -o"
  EXPECT_NE(r.err.find("winml-make run --help"), std::string::npos) << r.err;
}

namespace {

std::string bash_complete(const std::string& script_file, const std::string& words, int cword) {
  auto r = test::run_program({"bash", "-c",
                              "source '" + script_file + "'; COMP_WORDS=(" + words + "); COMP_CWORD=" +
                                  std::to_string(cword) + "; _winml_make; echo \" ${COMPREPLY[*]} \""});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

}  // namespace

TEST(UsageErrors, CompletionOffersWhatTheCommandTakes) {
  test::TempDir dir;
  const auto script = test::run_cli({"completions", "bash"});
  ASSERT_EQ(script.exit_code, 0);
  test::write_text(dir / "winml-make.bash", script.out);
  const std::string file = (dir / "winml-make.bash").string();
  // run takes its own options only: not the global -o, -C or --cache-dir after it (they would be refused).
  const auto after_run = bash_complete(file, "winml-make run -", 2);
  EXPECT_NE(after_run.find(" --model "), std::string::npos) << after_run;
  for (const char* global : {" -o ", " -C ", " --cache-dir ", " --define "})
    EXPECT_EQ(after_run.find(global), std::string::npos) << global << after_run;
  // A project command takes the global ones too.
  const auto after_status = bash_complete(file, "winml-make status -", 2);
  for (const char* global : {" -o ", " -C ", " --cache-dir "})
    EXPECT_NE(after_status.find(global), std::string::npos) << global << after_status;
  // completions' argument: the shells.
  EXPECT_EQ(bash_complete(file, "winml-make completions ''", 2), " bash zsh fish \n");
  EXPECT_EQ(bash_complete(file, "winml-make completions z", 2), " zsh \n");
}

// Usage errors name the command being read, what it expected (its choices,
// in the order given) and its own --help, not CLI11's defaults; completion
// offers after a command what that command takes.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/cli_runner.h"
#include "support/help_text.h"
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

TEST(UsageErrors, CompletionOffersWhatTheCommandTakes) {
  test::TempDir dir;
  const auto script = test::run_cli({"completions", "bash"});
  ASSERT_EQ(script.exit_code, 0);
  test::write_text(dir / "winml-make.bash", script.out);
  const std::string file = (dir / "winml-make.bash").string();
  auto offers = [](const std::vector<std::string>& offered, const std::string& option) {
    return std::find(offered.begin(), offered.end(), option) != offered.end();
  };
  // run takes its own options only: not the global -o, -C or --cache-dir after it (they would be refused).
  const auto after_run = test::bash_completions(file, "winml-make run -", 2);
  EXPECT_TRUE(offers(after_run, "--model"));
  for (const char* global : {"-o", "-C", "--cache-dir", "--define"}) EXPECT_FALSE(offers(after_run, global)) << global;
  // A project command takes the global ones too.
  const auto after_status = test::bash_completions(file, "winml-make status -", 2);
  for (const char* global : {"-o", "-C", "--cache-dir"}) EXPECT_TRUE(offers(after_status, global)) << global;
  // completions' argument: the shells.
  EXPECT_EQ(test::bash_completions(file, "winml-make completions ''", 2),
            (std::vector<std::string>{"bash", "zsh", "fish"}));
  EXPECT_EQ(test::bash_completions(file, "winml-make completions z", 2), std::vector<std::string>{"zsh"});
}

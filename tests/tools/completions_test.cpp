// winml-make completions bash|zsh|fish: every subcommand and every option
// that `--help` lists is completed (the scripts are generated from the same
// definition, the help text is the independent witness), and bash's script
// really completes.
#include <gtest/gtest.h>

#include "support/help_text.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;
using test::options_in_help;
using test::subcommands_in_help;
using Offered = std::vector<std::string>;

TEST(Completions, EverySubcommandAndOptionTheHelpListsIsInEveryScript) {
  const auto top = test::run_cli({"--help"});
  ASSERT_EQ(top.exit_code, 0);
  const auto subs = subcommands_in_help(top.out);
  ASSERT_GE(subs.size(), 10u) << top.out;
  const auto top_options = options_in_help(top.out);
  ASSERT_TRUE(top_options.count("--jobs") && top_options.count("-D") && top_options.count("--color")) << top.out;
  for (const std::string shell : {"bash", "zsh", "fish"}) {
    const auto script = test::run_cli({"completions", shell});
    ASSERT_EQ(script.exit_code, 0) << script.err;
    auto has_option = [&](const std::string& o) {
      if (shell != "fish")
        return script.out.find(" " + o + " ") != std::string::npos ||
               script.out.find(" " + o + "'") != std::string::npos ||
               script.out.find("'" + o + " ") != std::string::npos;
      return o.rfind("--", 0) == 0 ? script.out.find(" -l " + o.substr(2) + " ") != std::string::npos
                                   : script.out.find(" -s " + o.substr(1) + " ") != std::string::npos;
    };
    for (const auto& o : top_options) EXPECT_TRUE(has_option(o)) << shell << ": " << o;
    for (const auto& sub : subs) {
      EXPECT_NE(script.out.find(sub), std::string::npos) << shell << ": " << sub;
      const auto help = test::run_cli({sub, "--help"});
      for (const auto& o : options_in_help(help.out)) EXPECT_TRUE(has_option(o)) << shell << ": " << sub << " " << o;
    }
  }
  EXPECT_EQ(test::run_cli({"completions", "tcsh"}).exit_code, 2);
}

TEST(Completions, BashCompletesSubcommandsTheirOptionsAndTheBuildsOwn) {
  test::TempDir dir;
  const auto script = test::run_cli({"completions", "bash"});
  ASSERT_EQ(script.exit_code, 0);
  test::write_text(dir / "winml-make.bash", script.out);
  const std::string file = (dir / "winml-make.bash").string();
  EXPECT_EQ(test::bash_completions(file, "winml-make sta", 1), Offered{"status"});
  EXPECT_EQ(test::bash_completions(file, "winml-make status --js", 2), Offered{"--json"});
  EXPECT_EQ(test::bash_completions(file, "winml-make --reb", 1), Offered{"--rebuild"});
  // The build's own options are not offered after another subcommand.
  EXPECT_EQ(test::bash_completions(file, "winml-make status --reb", 2), Offered{});
  EXPECT_EQ(test::bash_completions(file, "winml-make cache ver", 2), Offered{"verify"});
  EXPECT_EQ(test::bash_completions(file, "winml-make -C proj --no-q", 3), Offered{"--no-quant"});
}

TEST(Completions, ZshAndFishScriptsParse) {
  test::TempDir dir;
  for (const std::string shell : {"zsh", "fish"}) {
    if (test::run_program({"sh", "-c", "command -v " + shell}).exit_code != 0) {
      std::cerr << shell << " is not installed: its script is not parsed\n";
      continue;
    }
    const auto script = test::run_cli({"completions", shell});
    test::write_text(dir / ("script." + shell), script.out);
    auto r = test::run_program({shell, "-n", (dir / ("script." + shell)).string()});
    EXPECT_EQ(r.exit_code, 0) << shell << ": " << r.err;
  }
}

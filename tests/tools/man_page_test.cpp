// winml-make man: the manual page names every subcommand and option `--help`
// lists and every environment variable docs/cli.md documents, and groff
// formats it without a warning.
#include <gtest/gtest.h>

#include <regex>

#include "support/help_text.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;

namespace {

// troff escapes a hyphen as "\-".
std::string roff(const std::string& s) { return std::regex_replace(s, std::regex("-"), "\\-"); }

}  // namespace

TEST(ManPage, NamesEverySubcommandOptionAndEnvironmentVariable) {
  const auto page = test::run_cli({"man"});
  ASSERT_EQ(page.exit_code, 0) << page.err;
  EXPECT_EQ(page.out.rfind(".TH WINML\\-MAKE 1", 0), 0u) << page.out.substr(0, 200);
  const auto top = test::run_cli({"--help"});
  const auto subs = test::subcommands_in_help(top.out);
  ASSERT_GE(subs.size(), 10u);
  for (const auto& o : test::options_in_help(top.out))
    EXPECT_NE(page.out.find("\\fB" + roff(o) + "\\fR"), std::string::npos) << o;
  for (const auto& sub : subs) {
    EXPECT_NE(page.out.find(".SS " + roff(sub) + "\n"), std::string::npos) << sub;
    for (const auto& o : test::options_in_help(test::run_cli({sub, "--help"}).out))
      EXPECT_NE(page.out.find("\\fB" + roff(o) + "\\fR"), std::string::npos) << sub << " " << o;
  }
  // The environment table of the reference.
  const std::string docs = test::read_text(test::source_dir() / "docs/cli.md");
  static const std::regex variable(R"(\n\| `([A-Z][A-Z_]+)` \|)");
  int variables = 0;
  for (std::sregex_iterator it(docs.begin(), docs.end(), variable), end; it != end; ++it, ++variables)
    EXPECT_NE(page.out.find("\\fB" + roff((*it)[1]) + "\\fR"), std::string::npos) << (*it)[1];
  EXPECT_GE(variables, 5);
  for (const char* code : {"\n0\n", "\n1\n", "\n2\n", "\n130\n"}) EXPECT_NE(page.out.find(code), std::string::npos);
}

TEST(ManPage, GroffFormatsItWithoutWarnings) {
  test::TempDir dir;
  test::write_text(dir / "winml-make.1", test::run_cli({"man"}).out);
  auto r = test::run_program({"groff", "-man", "-Tutf8", "-ww", "-z", (dir / "winml-make.1").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // -P-cbou: plain text, no overstrike or escape sequences for bold.
  auto text = test::run_program({"groff", "-man", "-Tutf8", "-P-cbou", (dir / "winml-make.1").string()});
  EXPECT_NE(text.out.find("EXIT STATUS"), std::string::npos);
}

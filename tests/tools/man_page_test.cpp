// winml-make man: the manual page names every subcommand and option `--help`
// lists and every environment variable docs/cli.md documents, and groff
// formats it without a warning.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

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

// A flag takes no value, so the page shows none after it (--rebuild, not
// "--rebuild VALUE"); an option that takes one shows its kind.
TEST(ManPage, OnlyOptionsThatTakeAValueShowOne) {
  const auto page = test::run_cli({"man"});
  ASSERT_EQ(page.exit_code, 0) << page.err;
  // An option's line: "\fB\-\-jobs\fR, \fB\-j\fR \fIINT\fR"; its value, if any, in italics.
  auto option_lines = [&](const std::string& name) {
    std::vector<std::string> lines;
    std::istringstream in(page.out);
    for (std::string l; std::getline(in, l);)
      if (l.rfind("\\fB" + roff(name) + "\\fR", 0) == 0) lines.push_back(l);
    return lines;
  };
  for (const char* flag : {"--rebuild", "--json", "--help", "--no-quant", "--keep-going", "--svg"}) {
    const auto lines = option_lines(flag);
    EXPECT_FALSE(lines.empty()) << flag;
    for (const auto& l : lines) EXPECT_EQ(l.find("\\fI"), std::string::npos) << l;
  }
  const auto jobs = option_lines("--jobs");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_NE(jobs.front().find("\\fIINT\\fR"), std::string::npos) << jobs.front();
}

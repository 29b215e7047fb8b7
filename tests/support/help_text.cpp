#include "support/help_text.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "support/cli_runner.h"

namespace winml::test {

std::vector<std::string> subcommands_in_help(const std::string& help) {
  std::vector<std::string> out;
  const auto at = help.find("Subcommands:");
  std::istringstream lines(help.substr(at == std::string::npos ? help.size() : at));
  std::string line;
  std::getline(lines, line);
  static const std::regex entry(R"(^  ([a-z]+)\s)");
  std::smatch m;
  while (std::getline(lines, line))
    if (std::regex_search(line, m, entry)) out.push_back(m[1]);
  return out;
}

std::set<std::string> options_in_help(const std::string& help) {
  std::set<std::string> out;
  static const std::regex name(R"((^|[ ,])(--?[A-Za-z][A-Za-z0-9-]*))");
  std::istringstream lines(help);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("  -", 0) != 0) continue;  // option lines start with two spaces and a dash
    const std::string names = line.substr(0, line.find("  ", 2));
    for (std::sregex_iterator it(names.begin(), names.end(), name), end; it != end; ++it) out.insert((*it)[2]);
  }
  return out;
}

std::vector<std::string> bash_completions(const std::string& script_file, const std::string& words, int cword) {
  auto r = run_program({"bash", "-c",
                        "source '" + script_file + "'; COMP_WORDS=(" + words + "); COMP_CWORD=" +
                            std::to_string(cword) + "; _winml_make; echo \"${COMPREPLY[*]}\""});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> offered;
  std::istringstream in(r.out);
  for (std::string w; in >> w;) offered.push_back(w);
  return offered;
}

}  // namespace winml::test

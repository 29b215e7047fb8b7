#include "support/help_text.h"

#include <regex>
#include <sstream>

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

}  // namespace winml::test

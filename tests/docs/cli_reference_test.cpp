// Keeps docs/cli.md in step with the binary's own --help:
//  - every subcommand `winml-make --help` lists (and the subcommands of those,
//    e.g. `cache gc`) has a section whose heading names it in backticks
//    ("## `winml-make status`"; the build is "## `winml-make` ..."), and that
//    section mentions every long option its --help prints;
//  - every long option in the first cell of an options table row exists in
//    the --help of the command whose section holds the table;
//  - every long option in a `winml-make ...` line of a code block exists for
//    the command that line runs (or a parent subcommand, e.g. `cache` for
//    `cache gc`; of winml-make's own options only -C/-c after a subcommand).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;

namespace {

// A command path: "" for winml-make itself, "status", "cache gc".
using CommandPath = std::string;

struct Help {
  std::set<std::string> options;      // long options, e.g. "--output-dir"
  std::vector<std::string> commands;  // subcommand names
};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::vector<std::string> long_options_in(const std::string& text) {
  static const std::regex re("--[A-Za-z0-9][A-Za-z0-9_-]*");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(it->str());
  return out;
}

CommandPath child_of(const CommandPath& parent, const std::string& name) {
  return parent.empty() ? name : parent + " " + name;
}

std::string describe(const CommandPath& p) { return p.empty() ? "winml-make" : "winml-make " + p; }

// CLI11's help: "Options:" and "Subcommands:" blocks of lines indented by two
// spaces, the first column (option names, or the subcommand's name) ending
// at the first run of two spaces.
Help parse_help(const std::string& text) {
  Help h;
  std::string block;
  for (const std::string& line : split_lines(text)) {
    if (line.empty()) {
      block.clear();
      continue;
    }
    if (line[0] != ' ') {
      block = line;
      continue;
    }
    if (line.size() < 3 || line[2] == ' ') continue;  // a wrapped description
    std::string first = line.substr(2);
    first = first.substr(0, first.find("  "));
    if (block == "Options:") {
      for (const auto& o : long_options_in(first)) h.options.insert(o);
    } else if (block == "Subcommands:") {
      h.commands.push_back(first.substr(0, first.find(' ')));
    }
  }
  return h;
}

// The help of winml-make and of every (nested) subcommand.
const std::map<CommandPath, Help>& all_help() {
  static const std::map<CommandPath, Help> help = [] {
    std::map<CommandPath, Help> out;
    std::vector<CommandPath> todo{""};
    while (!todo.empty()) {
      CommandPath p = todo.back();
      todo.pop_back();
      std::vector<std::string> args = split_words(p);
      args.push_back("--help");
      test::CliResult r = test::run_cli(args);
      EXPECT_EQ(r.exit_code, 0) << describe(p) << " --help: " << r.err;
      Help h = parse_help(r.out);
      for (const auto& c : h.commands) todo.push_back(child_of(p, c));
      out[p] = std::move(h);
    }
    return out;
  }();
  return help;
}

struct Mention {
  CommandPath command;
  int line = 0;
  std::string text;  // an option, or a whole command line
};

struct CliDoc {
  std::map<CommandPath, std::string> sections;  // heading to the next heading of the same level, nested ones included
  std::vector<Mention> table_options;           // long options in the first cell of table rows
  std::vector<Mention> example_lines;           // code-block lines that run winml-make
};

// "## `winml-make cache gc`" -> "cache gc"; "## `winml-make` — build" -> "".
std::optional<CommandPath> command_of_heading(const std::string& heading) {
  const std::string marker = "`winml-make";
  auto start = heading.find(marker);
  if (start == std::string::npos) return std::nullopt;
  auto end = heading.find('`', start + 1);
  if (end == std::string::npos) return std::nullopt;
  std::vector<std::string> words = split_words(heading.substr(start + 1, end - start - 1));
  static const std::regex name("[a-z][a-z0-9-]*");
  CommandPath path;
  for (std::size_t i = 1; i < words.size() && std::regex_match(words[i], name); ++i) path = child_of(path, words[i]);
  return path;
}

CliDoc parse_doc(const std::string& text) {
  CliDoc doc;
  struct Open {
    int level;
    std::optional<CommandPath> command;
  };
  std::vector<Open> open;
  bool in_code = false;
  int number = 0;
  for (const std::string& line : split_lines(text)) {
    ++number;
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    if (!in_code && line.rfind("#", 0) == 0) {
      int level = static_cast<int>(line.find_first_not_of('#'));
      while (!open.empty() && open.back().level >= level) open.pop_back();
      open.push_back({level, command_of_heading(line)});
    }
    std::optional<CommandPath> innermost;
    for (const auto& o : open)
      if (o.command) {
        doc.sections[*o.command] += line + "\n";
        innermost = o.command;
      }
    if (!innermost) continue;
    if (!in_code && line.rfind("|", 0) == 0) {
      std::string first = line.substr(1, line.find('|', 1) - 1);
      for (const auto& o : long_options_in(first)) doc.table_options.push_back({*innermost, number, o});
    }
    if (in_code) {
      std::string cmd = line.substr(std::min(line.size(), line.find_first_not_of(' ')));
      if (cmd.rfind("$ ", 0) == 0) cmd = cmd.substr(2);
      if (cmd == "winml-make" || cmd.rfind("winml-make ", 0) == 0)
        doc.example_lines.push_back({*innermost, number, cmd});
    }
  }
  return doc;
}

const CliDoc& cli_doc() {
  static const CliDoc doc = [] {
    std::string text = test::read_text(test::source_dir() / "docs" / "cli.md");
    EXPECT_FALSE(text.empty()) << "docs/cli.md is missing or empty";
    return parse_doc(text);
  }();
  return doc;
}

// `option` as a whole word of `text` ("--seed" is not found in "--seeds").
bool mentions(const std::string& text, const std::string& option) {
  for (auto pos = text.find(option); pos != std::string::npos; pos = text.find(option, pos + 1)) {
    auto after = pos + option.size();
    if (after == text.size()) return true;
    char c = text[after];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return true;
  }
  return false;
}

// Options of winml-make itself that an example may also give after a
// subcommand (the project commands accept them there). Other options of the
// build after a subcommand would be accepted and silently ignored.
// Options of the main app that subcommands accept too (through fallthrough).
bool global_option(const std::string& option) {
  return option == "--directory" || option == "--config" || option == "--output-dir" || option == "--cache-dir";
}

// optimize takes --enable-PASS / --disable-PASS for every pass name.
bool is_pass_flag(const CommandPath& command, const std::string& option) {
  return command == "optimize" && (option.rfind("--enable-", 0) == 0 || option.rfind("--disable-", 0) == 0);
}

}  // namespace

TEST(CliReference, HelpListsTheSubcommands) {
  const auto& help = all_help();
  ASSERT_TRUE(help.count(""));
  EXPECT_GE(help.at("").commands.size(), 10u) << "could not parse the subcommands of winml-make --help";
  EXPECT_TRUE(help.at("").options.count("--directory"));
}

// The table at the top lists every subcommand, each linked to its section.
TEST(CliReference, TheTableOfSubcommandsListsEveryOne) {
  const std::string text = test::read_text(test::source_dir() / "docs" / "cli.md");
  const auto table_start = text.find("| command | what it does |");
  ASSERT_NE(table_start, std::string::npos) << "docs/cli.md has no table of subcommands";
  const std::string table = text.substr(table_start, text.find("\n\n", table_start) - table_start);
  for (const auto& sub : all_help().at("").commands) {
    const std::string cell = "| [`" + sub + "`](#winml-make-" + sub + ") |";
    EXPECT_NE(table.find(cell), std::string::npos) << "docs/cli.md's table has no row " << cell;
    EXPECT_NE(text.find("\n## `winml-make " + sub + "`\n"), std::string::npos) << sub;
  }
}

TEST(CliReference, EverySubcommandAndLongOptionIsDocumented) {
  const CliDoc& doc = cli_doc();
  for (const auto& [command, help] : all_help()) {
    auto section = doc.sections.find(command);
    if (section == doc.sections.end()) {
      ADD_FAILURE() << "docs/cli.md has no section headed `" << describe(command) << "`";
      continue;
    }
    for (const auto& option : help.options) {
      if (option == "--help") continue;
      EXPECT_TRUE(mentions(section->second, option))
          << "docs/cli.md: the `" << describe(command) << "` section does not mention " << option;
    }
  }
}

TEST(CliReference, EveryListedOptionExists) {
  const auto& help = all_help();
  const CliDoc& doc = cli_doc();
  EXPECT_FALSE(doc.table_options.empty()) << "found no options tables in docs/cli.md";
  for (const auto& m : doc.table_options) {
    auto h = help.find(m.command);
    if (h == help.end()) {
      ADD_FAILURE() << "docs/cli.md:" << m.line << ": `" << describe(m.command) << "` is not a command";
      continue;
    }
    EXPECT_TRUE(h->second.options.count(m.text) || is_pass_flag(m.command, m.text))
        << "docs/cli.md:" << m.line << ": " << m.text << " is not an option of " << describe(m.command);
  }
}

TEST(CliReference, ExamplesUseExistingOptions) {
  const auto& help = all_help();
  const CliDoc& doc = cli_doc();
  EXPECT_FALSE(doc.example_lines.empty()) << "found no winml-make examples in docs/cli.md";
  for (const auto& m : doc.example_lines) {
    std::vector<std::string> words = split_words(m.text);
    CommandPath command;
    std::vector<CommandPath> scope{""};  // the command and the ones above it
    for (std::size_t i = 1; i < words.size(); ++i) {
      const std::string& w = words[i];
      // End of winml-make's arguments: a vendor compiler, a comment, a
      // redirection, or a pipe into another program.
      if (w == "--" || w == "#" || w == ">" || w == "&&" || w == ";") break;
      if (w == "|" && (i + 1 == words.size() || (words[i + 1][0] != '-' && words[i + 1][0] != '['))) break;
      const auto& children = help.at(command).commands;
      if (std::find(children.begin(), children.end(), w) != children.end()) {
        command = child_of(command, w);
        scope.push_back(command);
        continue;
      }
      for (const auto& option : long_options_in(w.substr(0, w.find('=')))) {
        bool known = is_pass_flag(command, option) || (!command.empty() && global_option(option));
        for (const auto& s : scope)
          if (!s.empty() || command.empty()) known = known || help.at(s).options.count(option) > 0;
        EXPECT_TRUE(known) << "docs/cli.md:" << m.line << ": " << option << " is not an option of " << describe(command)
                           << " (in: " << m.text << ")";
      }
    }
  }
}

// docs/getting-started.md, followed as a newcomer follows it: every command
// of its ```sh blocks runs, in order, in one shell session (a scratch copy of
// what the page uses from the repository: the built binary as build/winml-make,
// the quickstart example), and every documented output is compared with what
// the commands print, ignoring timings (and figures of the machine: threads,
// vector unit, resident memory) and the order of lines.
//  - a ```sh block runs as a script (set -e); when the next block is an
//    output block without "$ " lines, it is that script's output;
//  - in an output block, each "$ command" line runs, and the lines after it,
//    up to the next "$ ", are its output;
//  - "..." in an output stands for any number of other lines;
//  - ```toml blocks are examples to read, not steps.
// The only lines that do not run are those installing software or running
// the whole suite (kNotRunHere); each must still be on the page.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kNotRunHere = {"bash scripts/quickstart.sh", "bash scripts/test.sh",
                                               "cp build/winml-make build/winml-make-tools.so ~/bin/",
                                               "cmake --install build --prefix ~/.local"};

struct Block {
  std::string lang;
  std::vector<std::string> lines;
  int line = 0;  // of its opening fence, for messages
};

std::vector<Block> fenced_blocks(const std::string& markdown) {
  std::vector<Block> blocks;
  std::istringstream in(markdown);
  Block* open = nullptr;
  int n = 0;
  for (std::string l; std::getline(in, l);) {
    ++n;
    if (l.rfind("```", 0) == 0) {
      if (open) {
        open = nullptr;
      } else {
        blocks.push_back({l.substr(3), {}, n});
        open = &blocks.back();
      }
      continue;
    }
    if (open) open->lines.push_back(l);
  }
  return blocks;
}

// Timings and figures of the machine become placeholders; the scratch
// directory becomes the /tmp the page writes.
std::string normalized(std::string line, const fs::path& root) {
  for (std::size_t at; (at = line.find(root.string())) != std::string::npos;)
    line.replace(at, root.string().size(), "/tmp");
  static const std::vector<std::pair<std::regex, std::string>> rules = {
      {std::regex(R"(\b\d+\.\d+ (s|ms)\b)"), "<time> $1"},
      {std::regex(R"(peak RSS: [0-9.]+ MiB)"), "peak RSS: <rss> MiB"},
      {std::regex(R"(\b\d+ threads?, \w+$)"), "<threads>, <isa>"},
      {std::regex(R"(\s+$)"), ""},
  };
  for (const auto& [re, with] : rules) line = std::regex_replace(line, re, with);
  return line;
}

// The documented lines of one output, against what ran: as multisets (the
// order of parallel stages varies); "..." allows lines the page leaves out.
// `ls` prints one name per line into a pipe, in columns on a terminal: its
// names are compared.
void expect_output(const std::vector<std::string>& documented, const std::string& actual, const fs::path& root,
                   const std::string& what) {
  const bool words = what.rfind("ls ", 0) == 0;
  auto split = [&](const std::string& line, std::map<std::string, int>& into) {
    if (!words) return void(++into[normalized(line, root)]);
    std::istringstream w(line);
    for (std::string word; w >> word;) ++into[word];
  };
  std::map<std::string, int> want, got;
  bool open_ended = false;
  for (const auto& l : documented) {
    if (l.find_first_not_of(' ') != std::string::npos && l.substr(l.find_first_not_of(' ')) == "...") open_ended = true;
    else if (!l.empty()) split(l, want);
  }
  std::istringstream in(actual);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) split(l, got);
  std::string missing, extra;
  for (const auto& [line, n] : want)
    if (got[line] < n) missing += "\n  " + line;
  if (!open_ended)
    for (const auto& [line, n] : got)
      if (n > (want.count(line) ? want.at(line) : 0)) extra += "\n  " + line;
  EXPECT_TRUE(missing.empty() && extra.empty())
      << what << ":\ndocumented, not printed:" << missing << "\nprinted, not documented:" << extra
      << "\nthe whole output:\n" << actual;
}

// One shell session: the working directory and PATH carry from one command to the next.
class Session {
 public:
  Session(fs::path root) : root_(std::move(root)), cwd_(root_) {
    const char* p = std::getenv("PATH");
    path_ = p ? p : "/usr/bin:/bin";
  }
  // Runs `script`; its stdout and stderr, as on a terminal.
  std::string run(const std::string& script, const std::string& what) {
    static const std::string kMarker = "\n@@state@@\n";
    const auto r = test::run_program(
        {"bash", "-c",
         "exec 2>&1\nset -eo pipefail\ncd \"$0\"\nexport PATH=\"$1\"\n" + script + "\nprintf '" +
             "\\n@@state@@\\n%s\\n%s\\n' \"$PWD\" \"$PATH\"",
         cwd_.string(), path_},
        root_, {{"WINML_MAKE_CACHE_DIR", (root_ / "cache").string()}, {"NO_COLOR", "1"}});
    const auto at = r.out.rfind(kMarker);
    EXPECT_EQ(r.exit_code, 0) << what << " failed:\n" << r.out;
    if (at == std::string::npos) return r.out;
    std::istringstream state(r.out.substr(at + kMarker.size()));
    std::string cwd, path;
    std::getline(state, cwd);
    std::getline(state, path);
    cwd_ = cwd, path_ = path;
    return r.out.substr(0, at);
  }

 private:
  fs::path root_, cwd_;
  std::string path_;
};

bool not_run_here(const std::string& line, std::map<std::string, int>& seen) {
  for (const auto& prefix : kNotRunHere)
    if (line.rfind(prefix, 0) == 0) return ++seen[prefix], true;
  return false;
}

}  // namespace

TEST(GettingStarted, EveryCommandRunsAndPrintsWhatThePageShows) {
  const std::string page = test::read_text(test::source_dir() / "docs" / "getting-started.md");
  test::TempDir scratch;
  const fs::path root = scratch.path();
  // What the page uses from a checkout: the built binary, the quickstart example.
  fs::create_directories(root / "build");
  fs::create_symlink(test::winml_make_binary(), root / "build" / "winml-make");
  fs::create_directories(root / "examples" / "quickstart");
  for (const char* f : {"model.onnx", "winml.toml"})
    fs::copy_file(test::source_dir() / "examples" / "quickstart" / f, root / "examples" / "quickstart" / f);

  Session shell(root);
  std::map<std::string, int> skipped;
  const auto blocks = fenced_blocks(page);
  int commands = 0, outputs = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const Block& block = blocks[b];
    const std::string where = "getting-started.md:" + std::to_string(block.line);
    if (block.lang == "sh") {
      std::string script;
      for (const auto& l : block.lines)
        if (!not_run_here(l, skipped)) script += l + "\n";
      if (script.find_first_not_of(" \n") == std::string::npos) continue;
      ++commands;
      const std::string out = shell.run(script, where);
      const bool shown = b + 1 < blocks.size() && blocks[b + 1].lang.empty() &&
                         std::none_of(blocks[b + 1].lines.begin(), blocks[b + 1].lines.end(),
                                      [](const std::string& l) { return l.rfind("$ ", 0) == 0; });
      if (shown) {
        ++outputs;
        expect_output(blocks[b + 1].lines, out, root, where);
        ++b;
      }
      continue;
    }
    if (!block.lang.empty()) continue;
    // "$ command" lines and their outputs.
    for (std::size_t i = 0; i < block.lines.size(); ++i) {
      if (block.lines[i].rfind("$ ", 0) != 0) continue;
      const std::string command = block.lines[i].substr(2);
      std::vector<std::string> expected;
      std::size_t j = i + 1;
      for (; j < block.lines.size() && block.lines[j].rfind("$ ", 0) != 0; ++j) expected.push_back(block.lines[j]);
      ++commands, ++outputs;
      expect_output(expected, shell.run(command, where + ": $ " + command), root, command);
      i = j - 1;
    }
  }
  for (const auto& prefix : kNotRunHere) EXPECT_EQ(skipped[prefix], 1) << "not on the page any more: " << prefix;
  EXPECT_GE(commands, 15);
  EXPECT_GE(outputs, 10);
}

// Messages that must agree with themselves: a TOML error's line:column and
// its caret, the cache's size in stats and in verify, counts in the singular.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "support/project.h"

using namespace winml;
using test::Project;

namespace {

// The column toml11's caret points at under its " N | text" line.
std::pair<int, int> caret_position(const std::string& message) {
  std::istringstream in(message);
  int line = 0;
  std::pair<int, int> at{0, 0};
  for (std::string l; std::getline(in, l);) {
    static const std::regex source(R"(^ *(\d+) \| )"), caret(R"(^ *\| (.*?)\^)");
    std::smatch m;
    if (std::regex_search(l, m, source)) line = std::stoi(m[1]);
    else if (std::regex_search(l, m, caret) && line) at = {line, static_cast<int>(m[1].length()) + 1};
  }
  return at;
}

}  // namespace

TEST(SmallMessages, ATomlErrorsLineAndColumnAreWhereItsCaretPoints) {
  Project p;
  for (const std::string toml : {"[model]\nsource = \n", "[model]\nsource \"net.onnx\"\n",
                                 "[model]\nsource = \"net.onnx\" x\n", "[model]\nname = [1,\n"}) {
    p.write_config(toml);
    auto r = p.run({"config"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    static const std::regex header(R"(winml\.toml:(\d+):(\d+): TOML syntax error)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, header)) << r.err;
    const auto [line, column] = caret_position(r.err);
    ASSERT_GT(line, 0) << r.err;
    EXPECT_EQ(std::stoi(m[1]), line) << r.err;
    EXPECT_EQ(std::stoi(m[2]), column) << r.err;
  }
}

TEST(SmallMessages, CacheStatsAndVerifyCountTheSameBytes) {
  Project p;
  p.write_small_project();
  p.build();
  const auto stats = p.run({"cache", "stats"});
  const auto verify = p.run({"cache", "verify"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  ASSERT_EQ(verify.exit_code, 0) << verify.err;
  // "N entries, M blobs, 2.5 MiB" and "checked N entries and M blobs (2.5 MiB): all good".
  static const std::regex size(R"(([0-9.]+ (?:B|KiB|MiB|GiB)))");
  std::smatch a, b;
  ASSERT_TRUE(std::regex_search(stats.out, a, size)) << stats.out;
  ASSERT_TRUE(std::regex_search(verify.out, b, size)) << verify.out;
  EXPECT_EQ(a[1], b[1]) << stats.out << verify.out;
}

TEST(SmallMessages, OneIsSingular) {
  Project p;
  p.write_small_project();
  auto r = p.run({"run", "-m", "net.onnx", "--random", "--repeat", "1", "--profile"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(1 node)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(1 nodes)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over 1 run "), std::string::npos) << r.out;
}

// One word per status (graph::status_word), shared by the text a user reads
// and the --json report CI reads; and `status` tells what to do, an error
// first (issue: "status with a missing source file").
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "support/project.h"

using namespace winml;
using test::Project;

namespace {

const char* kTwoModels =
    "[[model]]\nname = \"good\"\nsource = \"net.onnx\"\n[[model]]\nname = \"bad\"\nsource = \"broken.onnx\"\n";

// "  not run    bad/optimize: ..." -> "not run".
std::map<std::string, std::string> text_words(const std::string& out) {
  // "  " + the word padded to 10 + " " + model/stage.
  static const std::regex line(R"(^  ([a-zA-Z ]{10}) (\w+/\w+))");
  std::map<std::string, std::string> words;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);)
    if (std::smatch m; std::regex_search(l, m, line)) {
      std::string word = m[1];
      word.erase(word.find_last_not_of(' ') + 1);
      if (word != "running" && word != "hashing") words[m[2]] = word;
    }
  return words;
}

std::string spaced(std::string word) {
  std::replace(word.begin(), word.end(), '-', ' ');
  return word;
}

}  // namespace

// A stage blocked by a failure is "not-run" in the report and "not run" in
// the text; "skipped" stays the word for a disabled stage, in both.
TEST(StatusWords, TheReportAndTheTextUseOneWordPerStatus) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write("broken.onnx", "not a model");
  p.write_config(std::string("[compile]\nenabled = false\n") + kTwoModels);
  auto r = p.run({"-k", "--json"});
  ASSERT_EQ(r.exit_code, 2) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  const auto json = test::statuses(report);
  EXPECT_EQ(json.at("bad/export"), "failed");
  EXPECT_EQ(json.at("bad/optimize"), "not-run");
  EXPECT_EQ(json.at("good/compile"), "skipped");
  EXPECT_EQ(json.at("bad/compile"), "skipped");
  EXPECT_EQ(report["summary"]["not-run"], 4) << report["summary"].dump();
  // The progress lines (stderr with --json) say the same words.
  const auto text = text_words(r.err);
  ASSERT_FALSE(text.empty()) << r.err;
  for (const auto& [stage, word] : text) {
    ASSERT_TRUE(json.count(stage)) << stage;
    EXPECT_EQ(word == "FAILED" ? "failed" : word, spaced(json.at(stage))) << stage << "\n" << r.err;
  }
  EXPECT_NE(r.err.find("4 not run"), std::string::npos) << r.err;
  // A dry run's words, likewise: would-run, would-fail.
  p.write_model("net.onnx", 2);
  std::filesystem::remove(p.root() / "broken.onnx");
  auto dry = p.run({"-n", "-k", "--json"});
  const auto dry_json = test::statuses(nlohmann::json::parse(dry.out));
  EXPECT_EQ(dry_json.at("good/export"), "would-run");
  EXPECT_EQ(dry_json.at("bad/export"), "would-fail");
  for (const auto& [stage, word] : text_words(dry.err))
    EXPECT_EQ(word, spaced(dry_json.at(stage))) << stage << "\n" << dry.err;
}

// status with the source gone: the export "would fail", the stages after it
// cannot run, and the summary says so, naming the error, instead of counting
// them as stale and sending the user to a build that fails again.
TEST(StatusWords, StatusWithAMissingSourceCountsTheErrorAndSaysToFixIt) {
  Project p;
  p.write_small_project();
  p.build();
  std::filesystem::remove(p.root() / "net.onnx");
  auto r = p.run({"status"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  export    would fail: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("net.onnx: no such file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  optimize  not run: export would fail"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("stale stage"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("run winml-make to rebuild"), std::string::npos) << r.out;
  const std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  EXPECT_NE(last.find("1 stage would fail (net/export: "), std::string::npos) << last;
  EXPECT_NE(last.find("5 stages cannot run"), std::string::npos) << last;
  EXPECT_NE(last.find("fix the error"), std::string::npos) << last;
  // The report says the same.
  const auto report = nlohmann::json::parse(p.run({"status", "--json"}).out);
  EXPECT_EQ(report["summary"]["would-fail"], 1);
  EXPECT_EQ(report["summary"]["not-run"], 5);
}

// One model's failure does not colour another's status.
TEST(StatusWords, StatusShowsEachModelOnItsOwn) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(kTwoModels);  // broken.onnx does not exist
  auto r = p.run({"status"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("not started"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("-k"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  package   would run: never built"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("6 stages would run"), std::string::npos) << r.out;
}

// Folders of models winml.toml no longer configures: `status` lists them and
// `clean --dead` removes what the records say winml-make wrote there, and
// nothing else (not a user's file, not a configured model's outputs).
#include <gtest/gtest.h>

#include "base/path_text.h"
#include "support/project.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

void two_models(Project& p, const std::string& second) {
  p.write_config(
      "[compile]\nenabled = false\n[[model]]\nname = \"keep\"\nsource = \"a.onnx\"\n"
      "[[model]]\nname = \"" +
      second + "\"\nsource = \"b.onnx\"\n");
}

}  // namespace

TEST(DeadOutputs, StatusListsARenamedModelsFolderAndCleanDeadRemovesOnlyIt) {
  Project p;
  p.write_model("a.onnx", 1);
  p.write_model("b.onnx", 2);
  two_models(p, "old");
  p.build();
  ASSERT_TRUE(fs::exists(p.out("old", "model.onnx")));
  two_models(p, "new");  // renamed
  p.build();

  auto status = p.run({"status"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("old  (" + to_utf8(p.out("old")) + ")\n  not configured in winml.toml any more: "),
            std::string::npos)
      << status.out;
  EXPECT_NE(status.out.find("winml-make clean --dead removes them"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("1 folder of models no longer configured"), std::string::npos) << status.out;
  EXPECT_EQ(status.out.find("everything is up to date"), std::string::npos) << status.out;

  auto json = nlohmann::json::parse(p.run({"status", "--json"}).out);
  ASSERT_EQ(json["dead"].size(), 1u) << json.dump(2);
  EXPECT_EQ(json["dead"][0]["model"], "old");
  EXPECT_EQ(json["dead"][0]["recorded"], true);
  EXPECT_GE(json["dead"][0]["files"].get<int>(), 4);  // export .. package
  EXPECT_GT(json["dead"][0]["bytes"].get<std::uint64_t>(), 0u);

  // A user's file in the dead folder stays, and so does the folder.
  p.write("build/old/notes.txt", "mine");
  auto clean = p.run({"clean", "--dead"});
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  // One line: what went, and the entry that keeps the folder.
  EXPECT_NE(clean.out.find(" from " + to_utf8(p.out("old")) +
                           "; kept the folder: it holds 1 entry winml-make did not write (notes.txt)"),
            std::string::npos)
      << clean.out;
  EXPECT_EQ(test::read_text(p.out("old", "notes.txt")), "mine");
  EXPECT_FALSE(fs::exists(p.out("old", "model.onnx")));
  EXPECT_FALSE(fs::exists(p.out("old", "build_manifest.json")));
  // The configured models are untouched: the next build has nothing to do.
  EXPECT_TRUE(fs::exists(p.out("keep", "model.onnx")));
  EXPECT_TRUE(fs::exists(p.out("new", "model.onnx")));
  for (const auto& [id, s] : test::statuses(p.build())) {
    if (id.find("/compile") == std::string::npos) {
      EXPECT_EQ(s, "up-to-date") << id;  // compile is disabled
    }
  }

  // Records gone: status lists nothing more (the folder holds no manifest).
  auto after = p.run({"status"});
  EXPECT_NE(after.out.find("everything is up to date"), std::string::npos) << after.out;
  auto again = p.run({"clean", "--dead"});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("no folders of unconfigured models to remove"), std::string::npos) << again.out;
}

TEST(DeadOutputs, AFolderWithoutRecordsIsListedButNeverDeleted) {
  Project p;
  p.write_model("a.onnx", 1);
  p.write_model("b.onnx", 2);
  two_models(p, "old");
  p.build();
  fs::remove_all(p.root() / "build" / ".winml-make");  // the records are lost
  two_models(p, "new");
  p.build();
  auto status = p.run({"status"});
  EXPECT_NE(status.out.find("no build records for it, so winml-make will not delete anything there"), std::string::npos)
      << status.out;
  auto clean = p.run({"clean", "--dead"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_NE(clean.out.find("kept " + to_utf8(p.out("old")) + ": no build records"), std::string::npos) << clean.out;
  EXPECT_TRUE(fs::exists(p.out("old", "model.onnx")));
}

TEST(DeadOutputs, DeadAndTargetsExcludeEachOther) {
  Project p;
  p.write_model("a.onnx", 1);
  p.write_model("b.onnx", 2);
  two_models(p, "old");
  auto r = p.run({"clean", "--dead", "keep"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--dead"), std::string::npos) << r.err;
}

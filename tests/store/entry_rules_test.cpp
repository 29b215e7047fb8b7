// The output rules every cache entry must pass, whatever cache it comes from.
#include <gtest/gtest.h>

#include "store/entry_rules.h"

using namespace winml;
using store::OutputFile;

namespace {

OutputFile out(const std::string& name, std::uint64_t size = 1) { return {name, store::digest_of(name), size}; }

std::string problem(const std::vector<OutputFile>& outputs, std::string_view primary = "compiled.onnx") {
  auto r = store::outputs_problem(outputs, primary);
  return r ? r->detail : "";
}

}  // namespace

TEST(EntryRules, AnArtifactWithItsSidecarsPasses) {
  EXPECT_EQ(problem({out("compiled.onnx"), out("compiled.onnx.data"), out("compiled_ref.bin")}), "");
  EXPECT_EQ(problem({out(std::string(128, 'a'))}, ""), "");
}

TEST(EntryRules, NamesCountsAndSizesOutsideTheRulesAreRefused) {
  EXPECT_EQ(problem({}), "no outputs");
  EXPECT_EQ(problem({out("compiled.onnx.data"), out("compiled.onnx")}),
            "the first output is 'compiled.onnx.data', not 'compiled.onnx'");
  EXPECT_EQ(problem({out("compiled.onnx"), out("compiled.onnx")}), "'compiled.onnx' is listed twice");
  EXPECT_EQ(problem({out("compiled.onnx"), out("x.winml-tmp.1")}), "'x.winml-tmp.1' is a temporary file's name");
  EXPECT_EQ(problem({out("compiled.onnx"), out(std::string(129, 'a'))}), "a name of 129 bytes (at most 128)");
  EXPECT_EQ(problem({out("compiled.onnx"), out("a/b")}), "'a/b' is not a plain file name");
  EXPECT_EQ(problem({out("compiled.onnx"), out("..")}), "an empty or relative name");
  EXPECT_EQ(problem({out("compiled.onnx"), out("bell\a")}), "'bell?' is not a plain file name");
  std::vector<OutputFile> many = {out("compiled.onnx")};
  for (int i = 0; i < 1024; ++i) many.push_back(out("p" + std::to_string(i)));
  EXPECT_EQ(problem(many), "1025 outputs (at most 1024)");
  // Claimed sizes that would wrap a sum around.
  EXPECT_NE(problem({out("compiled.onnx", ~0ull), out("compiled_ref.bin", 2)}), "");
  EXPECT_NE(problem({out("compiled.onnx", store::kMaxEntryBytes + 1)}), "");
  EXPECT_EQ(store::outputs_problem({out("compiled.onnx"), out("compiled.onnx")})->reason,
            store::rejection::kOutputRules);
}

TEST(EntryRules, TheFilesMustBeExactlyThoseTheArtifactNames) {
  EXPECT_FALSE(store::artifact_problem({"m.onnx", "m.onnx.data"}, {"m.onnx.data", "m.onnx"}));
  EXPECT_EQ(store::artifact_problem({"m.onnx"}, {"m.onnx", "notes.txt"})->detail,
            "'notes.txt' is not a file of the artifact");
  EXPECT_EQ(store::artifact_problem({"m.onnx", "m.onnx.data"}, {"m.onnx"})->detail,
            "the artifact names 'm.onnx.data', which is missing");
}

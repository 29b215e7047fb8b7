// EP operator tables: every shipped table is valid data, and malformed
// tables are reported naming the file.
#include <gtest/gtest.h>

#include "analyze/ep_table.h"
#include "base/error.h"
#include "config/rule_names.h"

using namespace winml;
using analyze::Support;

TEST(EpTable, EveryShippedTableLoadsAndDescribesItsEp) {
  auto names = analyze::ep_table_names();
  EXPECT_EQ(names, config::ep_names());
  for (const char* required : {"cpu", "dml", "openvino", "qnn", "ref", "vitisai"})
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  for (const auto& name : names) {
    auto t = analyze::load_ep_table(name);
    EXPECT_FALSE(t.ep_type.empty()) << name;
    EXPECT_FALSE(t.default_device.empty()) << name;
    EXPECT_GT(t.supported.at("ai.onnx").size(), 20u) << name << " lists supported ai.onnx operators";
    EXPECT_EQ(t.status("", "Conv"), t.status("ai.onnx", "Conv")) << "'' and ai.onnx are the same domain";
  }
}

TEST(EpTable, StatusComesFromTheLists) {
  auto t = analyze::parse_ep_table("t", R"(
[ep]
name = "t"
ep_type = "TestExecutionProvider"
default_device = "npu"
[ops."ai.onnx"]
supported = ["Conv", "Relu"]
unsupported = ["Loop"]
[ops."com.microsoft"]
supported = ["Gelu"]
[[partial]]
op = "Resize"
attribute = "mode"
values = ["nearest"]
note = "nearest only"
)", "t.toml");
  EXPECT_EQ(t.status("", "Conv"), Support::kSupported);
  EXPECT_EQ(t.status("", "Loop"), Support::kUnsupported);
  EXPECT_EQ(t.status("", "Resize"), Support::kPartial);
  EXPECT_EQ(t.status("", "Gelu"), Support::kUnknown);
  EXPECT_EQ(t.status("com.microsoft", "Gelu"), Support::kSupported);
  EXPECT_TRUE(t.runs("", "Resize"));
  EXPECT_FALSE(t.runs("", "Loop"));
  ASSERT_EQ(t.constraints("", "Resize").size(), 1u);
  EXPECT_EQ(t.constraints("", "Resize")[0]->values, std::vector<std::string>{"nearest"});
}

TEST(EpTable, MalformedTablesNameTheFile) {
  const char* bad[] = {
      "[ep]\nname = \"other\"\n",                                             // name mismatch
      "[ep]\nname = \"t\"\ncolour = \"red\"\n",                               // unknown [ep] key
      "[ep]\nname = \"t\"\n[ops.\"ai.onnx\"]\nsupported = [\"A\"]\nunsupported = [\"A\"]\n",
      "[ep]\nname = \"t\"\n[[partial]]\nop = \"A\"\n",                        // no note
      "[ep]\nname = \"t\"\n[[partial]]\nop = \"A\"\nnote = \"x\"\nrank = 2\n",  // unknown key
      "[ep\n",                                                                 // not TOML
  };
  for (const char* text : bad) {
    try {
      analyze::parse_ep_table("t", text, "rules/ep/t.toml");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("rules/ep/t.toml", 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(analyze::load_ep_table("no_such_ep"), InputError);
}

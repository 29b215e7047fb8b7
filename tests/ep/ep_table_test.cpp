// EP operator tables: every shipped table is valid data, malformed tables
// are reported naming the file, and the configuration takes an EP's default
// device from the same reader.
#include <gtest/gtest.h>

#include "base/error.h"
#include "base/rules.h"
#include "config/project.h"
#include "ep/ep_table.h"
#include "support/temp_dir.h"

using namespace winml;
using ep::Support;

TEST(EpTable, EveryShippedTableLoadsAndDescribesItsEp) {
  auto names = ep::ep_table_names();
  for (const char* required : {"cpu", "dml", "openvino", "qnn", "ref", "vitisai"})
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  for (const auto& name : names) {
    auto t = ep::load_ep_table(name);
    EXPECT_FALSE(t.ep_type.empty()) << name;
    EXPECT_FALSE(t.default_device.empty()) << name;
    EXPECT_GT(t.supported.at("ai.onnx").size(), 20u) << name << " lists supported ai.onnx operators";
    EXPECT_EQ(t.status("", "Conv"), t.status("ai.onnx", "Conv")) << "'' and ai.onnx are the same domain";
  }
}

TEST(EpTable, StatusComesFromTheLists) {
  auto t = ep::parse_ep_table("t", R"(
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
)",
                              "t.toml");
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
      "[ep]\nname = \"other\"\n",                // name mismatch
      "[ep]\nname = \"t\"\ncolour = \"red\"\n",  // unknown [ep] key
      "[ep]\nname = \"t\"\n[ops.\"ai.onnx\"]\nsupported = [\"A\"]\nunsupported = [\"A\"]\n",
      "[ep]\nname = \"t\"\n[[partial]]\nop = \"A\"\n",                          // no note
      "[ep]\nname = \"t\"\n[[partial]]\nop = \"A\"\nnote = \"x\"\nrank = 2\n",  // unknown key
      "[ep\n",                                                                  // not TOML
  };
  for (const char* text : bad) {
    try {
      ep::parse_ep_table("t", text, "rules/ep/t.toml");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("rules/ep/t.toml", 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(ep::load_ep_table("no_such_ep"), InputError);
}

// A table the configuration reads for `[compile] device` is checked like
// everywhere else: a damaged one is an error naming it, not a silent "".
TEST(EpTable, ConfigReadsTheDefaultDeviceThroughTheTableReader) {
  test::TempDir dir;
  test::write_text(dir / "winml.toml", "[model]\nsource = \"m.onnx\"\n[compile]\nep = \"mine\"\n");
  test::write_text(dir / "rules" / "ep" / "mine.toml", "[ep]\nname = \"mine\"\ndefault_device = \"npu\"\n");
  rules::Rules r;
  r.add_overlay(dir / "rules");
  rules::set_active(r);
  EXPECT_EQ(config::load_project(dir.path()).models.at(0).compile.device, "npu");

  test::write_text(dir / "rules" / "ep" / "mine.toml", "[ep]\nname = \"mine\"\ndefault_devise = \"npu\"\n");
  try {
    config::load_project(dir.path());
    ADD_FAILURE() << "a damaged EP table was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mine.toml"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("default_devise"), std::string::npos) << e.what();
  }
  rules::set_active(rules::Rules());
}

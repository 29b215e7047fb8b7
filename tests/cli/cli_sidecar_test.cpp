// Sidecar flows on a real exported model with external data (ViT-B/16,
// ~330 MB in vit_b_16_op17.onnx.data).
#include <gtest/gtest.h>

#include "support/project.h"
#include "model/model_io.h"
#include "model/sidecars.h"
#include "store/digest.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

// float16 keeps the quantized model above the 100 MiB threshold (int8 would
// not), so every stage's artifact has a .onnx.data sidecar.
const char* kVitFp16 =
    "[model]\nname = \"{}\"\nsource = \"vit_b_16_op17.onnx\"\n[quantize]\nmode = \"fp16\"\nsamples = 1\n";

std::string vit_config(const std::string& name) {
  std::string s = kVitFp16;
  return s.replace(s.find("{}"), 2, name);
}

std::vector<std::string> data_files(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().ends_with(".data")) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(SidecarFlows, ExternalDataFollowsEveryStageAndAWarmCacheRestoresIt) {
  test::exported_model("vit_b_16_op17");
  Project a, b;
  a.link_exported_model("vit_b_16_op17.onnx");
  a.write_config(vit_config("vit"));
  auto r = a.build();
  EXPECT_EQ(test::stages_with(r, "vit", "completed").size(), 6u) << r.dump();
  EXPECT_EQ(data_files(a.out("vit")),
            (std::vector<std::string>{"compiled.onnx.data", "export.onnx.data", "model.onnx.data",
                                      "optimized.onnx.data", "quantized.onnx.data"}));
  model::Model m = model::load_model(a.out("vit", "model.onnx"));
  EXPECT_EQ(m.external_files.count("model.onnx.data"), 1u);
  // The sidecar is part of the source's identity in the key.
  std::string inputs = r["models"][0]["stages"][0].dump();
  auto manifest = nlohmann::json::parse(test::read_text(a.out("vit", "build_manifest.json")));
  EXPECT_NE(manifest["stages"][0]["inputs"].dump().find("model:vit_b_16_op17.onnx.data"), std::string::npos)
      << manifest["stages"][0]["inputs"].dump();

  auto again = a.build();
  EXPECT_EQ(test::stages_with(again, "vit", "up-to-date").size(), 6u);

  a.clone_to(b.root());
  b.use_cache(a.cache_dir());
  auto restored = b.build();
  EXPECT_EQ(test::stages_with(restored, "vit", "cached").size(), 6u) << restored.dump();
  EXPECT_EQ(test::artifact_digests(a.out("vit")), test::artifact_digests(b.out("vit")));
}

TEST(SidecarFlows, WithoutRecordsARebuildDeletesNothingAndTheNewModelsStandAlone) {
  test::exported_model("vit_b_16_op17");
  Project p;
  p.link_exported_model("vit_b_16_op17.onnx");
  p.write_model("small.onnx", 5);
  p.write_config(vit_config("m"));
  p.build({"--no-cache"});
  ASSERT_EQ(data_files(p.out("m")).size(), 5u);
  // The records are lost (say, the state directory was deleted), then the
  // model shrinks below the external-data threshold. Files no record names
  // may be the user's: they stay, and nothing built refers to them.
  fs::remove_all(p.root() / "build" / ".winml-make");
  p.write_config("[model]\nname = \"m\"\nsource = \"small.onnx\"\n");
  auto r = p.build({"--no-cache", "--rebuild"});
  EXPECT_EQ(test::stages_with(r, "m", "completed").size(), 6u);
  EXPECT_EQ(data_files(p.out("m")).size(), 5u);
  for (const char* f : {"export.onnx", "optimized.onnx", "quantized.onnx", "model.onnx"})
    EXPECT_EQ(model::model_files(p.out("m", f)).all().size(), 1u) << f;
  EXPECT_NO_THROW(model::load_model(p.out("m", "model.onnx")));
}

TEST(SidecarFlows, ShrinkingModelDropsItsOldSidecarsThroughTheRecords) {
  test::exported_model("vit_b_16_op17");
  Project p;
  p.link_exported_model("vit_b_16_op17.onnx");
  p.write_model("small.onnx", 5);
  p.write_config(vit_config("m"));
  p.build({"--no-cache"});
  p.write_config("[model]\nname = \"m\"\nsource = \"small.onnx\"\n");
  p.build({"--no-cache"});
  EXPECT_TRUE(data_files(p.out("m")).empty()) << testing::PrintToString(data_files(p.out("m")));
}

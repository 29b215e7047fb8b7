// Model I/O on real exported models: ResNet-50 (97 MiB, one file) and
// ViT-B/16 (330 MiB, external data written by the onnx Python package).
#include <gtest/gtest.h>

#include "model/model_io.h"
#include "model/sidecars.h"
#include "store/digest.h"
#include "support/temp_dir.h"

using namespace winml;
using namespace winml::model;
namespace fs = std::filesystem;

namespace {
// Digest over every initializer's name and bytes.
store::Digest weights_digest(const Model& m) {
  store::Hasher h;
  for (const auto& t : m.proto.graph().initializer()) {
    auto b = m.tensor_bytes(t);
    h.update_field(t.name());
    h.update(b.bytes.data(), b.bytes.size());
  }
  return h.finish();
}
}  // namespace

TEST(RealModelIo, ResNet50RoundTripIsLosslessAndDeterministic) {
  test::TempDir dir;
  Model m = load_model(test::exported_model("resnet50_op13"));
  auto before = weights_digest(m);
  std::string graph_before = serialize_deterministic(m.proto.graph());
  save_model(m, dir / "a.onnx");
  EXPECT_FALSE(fs::exists(dir / "a.onnx.data")) << "97 MiB stays below the 100 MiB threshold";
  Model again = load_model(test::exported_model("resnet50_op13"));
  save_model(again, dir / "b.onnx");
  EXPECT_EQ(store::hash_file(dir / "a.onnx"), store::hash_file(dir / "b.onnx"));
  Model loaded = load_model(dir / "a.onnx");
  EXPECT_EQ(weights_digest(loaded), before);
  EXPECT_EQ(serialize_deterministic(loaded.proto.graph()), graph_before);
}

TEST(RealModelIo, VitExternalDataRoundTripAndPackageCopy) {
  test::TempDir dir, moved;
  Model m = load_model(test::exported_model("vit_b_16_op17"));
  ASSERT_EQ(m.external_files.size(), 1u);
  auto before = weights_digest(m);
  save_model(m, dir / "compiled.onnx");
  ASSERT_TRUE(fs::exists(dir / "compiled.onnx.data")) << "330 MiB goes to the sidecar";
  EXPECT_LT(fs::file_size(dir / "compiled.onnx"), 1u << 20);
  EXPECT_EQ(weights_digest(load_model(dir / "compiled.onnx")), before);

  // Deterministic with external data too.
  Model m2 = load_model(test::exported_model("vit_b_16_op17"));
  save_model(m2, dir / "again" / "compiled.onnx");
  EXPECT_EQ(store::hash_file(dir / "compiled.onnx.data"), store::hash_file(dir / "again" / "compiled.onnx.data"));
  EXPECT_EQ(store::hash_file(dir / "compiled.onnx"), store::hash_file(dir / "again" / "compiled.onnx"));

  copy_model(dir / "compiled.onnx", dir / "model.onnx");
  fs::rename(dir / "model.onnx", moved / "model.onnx");
  fs::rename(dir / "model.onnx.data", moved / "model.onnx.data");
  EXPECT_EQ(weights_digest(load_model(moved / "model.onnx")), before);
}

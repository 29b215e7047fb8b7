// Copy/move/remove keep a model's files together and rewrite references.
#include <gtest/gtest.h>

#include "model/epcontext.h"
#include "model/external_data.h"
#include "model/model_io.h"
#include "model/sidecars.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
using namespace winml::model;
namespace fs = std::filesystem;

namespace {
void save_external(const onnx::ModelProto& proto, const fs::path& path) {
  Model m;
  m.proto = proto;
  m.path = path;
  SaveOptions opts;
  opts.external = ExternalData::kAlways;
  save_model(m, path, opts);
}

std::string weights_of(const fs::path& p) {
  Model m = load_model(p);
  std::string all;
  for (const auto& t : m.proto.graph().initializer()) {
    auto b = m.tensor_bytes(t);
    all.append(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size());
  }
  return all;
}
}  // namespace

TEST(Sidecars, RenamedSidecarFollowsTheStem) {
  EXPECT_EQ(renamed_sidecar("compiled_ref.bin", "compiled", "model"), "model_ref.bin");
  EXPECT_EQ(renamed_sidecar("compiled.onnx.data", "compiled", "model"), "model.onnx.data");
  EXPECT_EQ(renamed_sidecar("ctx.bin", "compiled", "model"), "model_ctx.bin");
  EXPECT_EQ(renamed_sidecar("compiledx.bin", "compiled", "model"), "model_compiledx.bin");
}

TEST(Sidecars, CopyCarriesExternalDataAndLoadsFromAnyDirectory) {
  test::TempDir dir, elsewhere;
  save_external(test::linear_model(256, 64), dir / "build" / "compiled.onnx");
  std::string weights = weights_of(dir / "build" / "compiled.onnx");

  copy_model(dir / "build" / "compiled.onnx", dir / "build" / "model.onnx");
  EXPECT_TRUE(fs::exists(dir / "build" / "model.onnx.data"));
  EXPECT_TRUE(fs::exists(dir / "build" / "compiled.onnx.data"));  // copy leaves the source intact
  Model copied = load_model(dir / "build" / "model.onnx");
  for (const auto& t : copied.proto.graph().initializer()) {
    if (is_external(t)) {
      EXPECT_EQ(read_external_ref(t, "").location, "model.onnx.data");
    }
  }

  // Move the whole output directory: still loads.
  fs::rename(dir / "build", elsewhere / "moved");
  EXPECT_EQ(weights_of(elsewhere / "moved" / "model.onnx"), weights);
}

TEST(Sidecars, MoveRenamesSidecars) {
  test::TempDir dir;
  save_external(test::linear_model(64, 64), dir / "a.onnx");
  std::string weights = weights_of(dir / "a.onnx");
  move_model(dir / "a.onnx", dir / "b.onnx");
  EXPECT_FALSE(fs::exists(dir / "a.onnx"));
  EXPECT_FALSE(fs::exists(dir / "a.onnx.data"));
  EXPECT_EQ(weights_of(dir / "b.onnx"), weights);
}

TEST(Sidecars, EpContextBlobsAreRenamedAndReferencesRewritten) {
  test::TempDir dir, other;
  test::write_text(dir / "compiled_ref.bin", "BLOB");
  test::write_text(dir / "compiled.onnx", serialize_deterministic(test::epcontext_model("ref", 0, "compiled_ref.bin")));
  copy_model(dir / "compiled.onnx", other / "model.onnx");
  EXPECT_EQ(test::read_text(other / "model_ref.bin"), "BLOB");
  Model m = load_model(other / "model.onnx");
  EXPECT_EQ(find_ep_contexts(m.proto)[0].blob_file, "model_ref.bin");
  auto files = model_files(other / "model.onnx");
  EXPECT_EQ(files.blob_files.size(), 1u);
}

TEST(Sidecars, CopyOverLargerPredecessorRemovesItsStaleData) {
  test::TempDir dir;
  save_external(test::linear_model(64, 64), dir / "model.onnx");
  Model small;
  small.proto = test::linear_model(4, 4);
  small.path = dir / "small.onnx";
  save_model(small, dir / "small.onnx");
  copy_model(dir / "small.onnx", dir / "model.onnx");
  EXPECT_FALSE(fs::exists(dir / "model.onnx.data"));
  EXPECT_NO_THROW(load_model(dir / "model.onnx"));
}

TEST(Sidecars, RemoveModelTakesItsSidecars) {
  test::TempDir dir;
  save_external(test::linear_model(64, 64), dir / "m.onnx");
  remove_model(dir / "m.onnx");
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

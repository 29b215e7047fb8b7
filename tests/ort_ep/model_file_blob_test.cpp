// The plugin EP reads an embedded ref blob where it lies in the model file
// ONNX Runtime loaded (ort_ep/model_file_blob.h), and only when the file
// holds exactly the node ORT describes; otherwise it copies ORT's attribute.
#include <gtest/gtest.h>

#include "compile/compile.h"
#include "support/compile_util.h"
#include "model/mapped_blobs.h"
#include "model/model_io.h"
#include "ort_ep/model_file_blob.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

TEST(ModelFileBlob, FindsEachNodesBlobInTheMappedFile) {
  test::TempDir dir;
  const fs::path compiled = test::compile_embedded(dir.path(), test::two_partitions());
  const model::Model parsed = model::load_model(compiled);
  int seen = 0;
  for (const auto& n : parsed.proto.graph().node()) {
    if (n.op_type() != "EPContext") continue;
    ++seen;
    std::string blob;
    for (const auto& a : n.attribute())
      if (a.name() == "ep_cache_context") blob = a.s();
    auto mapped = ort_ep::map_blob_in_model_file(compiled, n.name(), blob.size());
    ASSERT_TRUE(mapped.has_value()) << n.name();
    EXPECT_TRUE(mapped->owner);
    EXPECT_EQ(mapped->bytes, blob) << n.name();
    EXPECT_NE(mapped->bytes.data(), blob.data());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(mapped->bytes.data()) % 64, 0u) << "the backend aligned it";
    // Not what ORT holds: another size, another name.
    EXPECT_FALSE(ort_ep::map_blob_in_model_file(compiled, n.name(), blob.size() - 1).has_value());
    EXPECT_FALSE(ort_ep::map_blob_in_model_file(compiled, n.name() + "_x", blob.size()).has_value());
  }
  EXPECT_EQ(seen, 2);
}

TEST(ModelFileBlob, WithoutAFileOrAnUnambiguousNodeItFindsNothing) {
  test::TempDir dir;
  const fs::path compiled = test::compile_embedded(dir.path(), test::two_partitions());
  const std::vector<model::LiftedString> blobs = model::find_context_blobs(test::read_text(compiled), 64 * 1024);
  ASSERT_EQ(blobs.size(), 2u);
  const auto& first = blobs[0];
  const std::size_t size = static_cast<std::size_t>(first.size);
  ASSERT_TRUE(ort_ep::map_blob_in_model_file(compiled, first.node_name, size).has_value());
  // A model from memory (no path), a file that is gone, one that is not a model.
  EXPECT_FALSE(ort_ep::map_blob_in_model_file({}, first.node_name, size).has_value());
  EXPECT_FALSE(ort_ep::map_blob_in_model_file(dir / "gone.onnx", first.node_name, size).has_value());
  test::write_text(dir / "text.onnx", std::string(1000, 'x'));
  EXPECT_FALSE(ort_ep::map_blob_in_model_file(dir / "text.onnx", first.node_name, size).has_value());
  // Two nodes of one name: which one ORT meant is not known.
  model::Model m = model::load_model(compiled);
  m.proto.mutable_graph()->mutable_node(blobs[1].node)->set_name(first.node_name);
  test::write_model(m.proto, dir / "twice.onnx");
  EXPECT_FALSE(ort_ep::map_blob_in_model_file(dir / "twice.onnx", first.node_name, size).has_value());
}

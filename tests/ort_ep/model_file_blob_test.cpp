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

namespace {

// Two ref partitions around an operator the runtime lacks, blobs embedded.
fs::path two_embedded_blobs(const test::TempDir& dir) {
  test::GraphBuilder b("two");
  b.input("x", {1, 64});
  b.initializer("W1", {64, 300}, test::random_floats(64 * 300, 1));
  b.initializer("W2", {300, 300}, test::random_floats(300 * 300, 2));
  b.node("MatMul", {"x", "W1"}, {"a"}, "first");
  b.node("Opaque", {"a"}, {"b"}, "custom", "com.example");
  b.node("MatMul", {"b", "W2"}, {"y"}, "second");
  b.output("y", {1, 300});
  onnx::ModelProto m = test::make_model(b.graph(), 17);
  auto* o = m.add_opset_import();
  o->set_domain("com.example");
  o->set_version(1);
  test::write_model(m, dir / "model.onnx");
  compile::CompileOptions c;
  c.ep = "ref";
  c.embed = true;
  c.validate = false;
  compile::compile_model(dir / "model.onnx", dir / "compiled.onnx", c);
  return dir / "compiled.onnx";
}

TEST(ModelFileBlob, FindsEachNodesBlobInTheMappedFile) {
  test::TempDir dir;
  const fs::path compiled = two_embedded_blobs(dir);
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
  const fs::path compiled = two_embedded_blobs(dir);
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

}  // namespace

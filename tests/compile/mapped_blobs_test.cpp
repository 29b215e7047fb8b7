// Embedded `ref` blobs at aligned offsets of the file (model/blob_alignment.h)
// and read there (model/mapped_blobs.h): the loaded model runs as the
// protobuf-parsed one does, without copying the blob or its weights.
#include <gtest/gtest.h>

#include "compile/compile.h"
#include "support/compile_util.h"
#include "compile/epcontext_convert.h"
#include "model/blob_alignment.h"
#include "model/epcontext.h"
#include "model/mapped_blobs.h"
#include "model/model_io.h"
#include "runtime/session.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

std::string file_bytes(const fs::path& p) { return test::read_text(p); }

TEST(MappedBlobs, EmbeddedBlobsStartAt64ByteOffsetsOfTheFile) {
  test::TempDir dir;
  const fs::path compiled = test::compile_embedded(dir.path(), test::linear_model(64, 300, 3));
  const std::string bytes = file_bytes(compiled);
  auto lifted = model::lift_context_blobs(bytes, 1024);
  ASSERT_TRUE(lifted.has_value());
  ASSERT_EQ(lifted->strings.size(), 1u);
  const model::Model parsed = model::load_model(compiled);
  for (const auto& s : lifted->strings) {
    EXPECT_EQ(s.offset % 64, 0u) << "blob of node " << s.node << " at " << s.offset;
    const auto& a = parsed.proto.graph().node(s.node).attribute(s.attribute);
    EXPECT_EQ(a.name(), "ep_cache_context");
    EXPECT_EQ(std::string_view(bytes).substr(s.offset, s.size), a.s()) << "the scan found the attribute's bytes";
    // The computed offset is the one protobuf wrote.
    EXPECT_EQ(model::string_offset(parsed.proto, s.node, s.attribute), s.offset);
  }
}

TEST(MappedBlobs, EveryPartitionsBlobIsAligned) {
  test::TempDir dir;
  const fs::path compiled = test::compile_embedded(dir.path(), test::two_partitions());
  auto lifted = model::lift_context_blobs(file_bytes(compiled), 64 * 1024);
  ASSERT_TRUE(lifted.has_value());
  ASSERT_EQ(lifted->strings.size(), 2u);
  for (const auto& s : lifted->strings) EXPECT_EQ(s.offset % 64, 0u);
}

TEST(MappedBlobs, FindingTheBlobsNamesTheirNodesAndCopiesNothing) {
  test::TempDir dir;
  const fs::path compiled = test::compile_embedded(dir.path(), test::two_partitions());
  const std::string bytes = file_bytes(compiled);
  const std::vector<model::LiftedString> found = model::find_context_blobs(bytes, 64 * 1024);
  auto lifted = model::lift_context_blobs(bytes, 64 * 1024);
  ASSERT_TRUE(lifted.has_value());
  ASSERT_EQ(found.size(), 2u);
  ASSERT_EQ(lifted->strings.size(), 2u);
  const model::Model parsed = model::load_model(compiled);
  for (std::size_t k = 0; k < found.size(); ++k) {
    const model::LiftedString& s = found[k];
    EXPECT_EQ(s.offset, lifted->strings[k].offset);
    EXPECT_EQ(s.size, lifted->strings[k].size);
    const onnx::NodeProto& n = parsed.proto.graph().node(s.node);
    EXPECT_FALSE(n.name().empty());
    EXPECT_EQ(s.node_name, n.name());
    EXPECT_EQ(std::string_view(bytes).substr(s.offset, s.size), n.attribute(s.attribute).s());
  }
  EXPECT_NE(found[0].node_name, found[1].node_name);
  // Nothing as large, or not a model: nothing found.
  EXPECT_TRUE(model::find_context_blobs(bytes, found[0].size + found[1].size).empty());
  EXPECT_TRUE(model::find_context_blobs(std::string(100, '\xff'), 1).empty());
}

TEST(MappedBlobs, EpcontextEmbedAlignsTheBlobsItMovesIn) {
  test::TempDir dir;
  test::write_model(test::two_partitions(), dir / "model.onnx");
  compile::CompileOptions o;
  o.ep = "ref";
  o.validate = false;
  compile::compile_model(dir / "model.onnx", dir / "bin" / "compiled.onnx", o);
  compile::convert_epcontext(dir / "bin" / "compiled.onnx", dir / "embedded.onnx", /*embed=*/true);
  auto lifted = model::lift_context_blobs(file_bytes(dir / "embedded.onnx"), 64 * 1024);
  ASSERT_TRUE(lifted.has_value());
  ASSERT_EQ(lifted->strings.size(), 2u);
  for (const auto& s : lifted->strings) EXPECT_EQ(s.offset % 64, 0u);
}

TEST(MappedBlobs, AMappedModelRunsAsTheParsedOneWithoutCopyingItsBlob) {
  test::TempDir dir;
  const fs::path compiled = test::compile_embedded(dir.path(), test::linear_model(64, 300, 5));
  const model::Model parsed = model::load_model(compiled);
  const model::Model mapped = model::load_model(compiled, {.map_blobs = true});
  ASSERT_EQ(mapped.mapped_strings.size(), 1u);
  const auto& [attribute, view] = *mapped.mapped_strings.begin();
  EXPECT_TRUE(attribute->s().empty()) << "the blob was not copied into protobuf";
  EXPECT_GE(reinterpret_cast<const std::byte*>(view.data()), mapped.mapped_model->data());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(view.data()) % 64, 0u);
  const auto x = test::random_input({2, 64}, 7);
  runtime::Session a(parsed, {.threads = 1, .dims = {{"batch", 2}}});
  runtime::Session b(mapped, {.threads = 1, .dims = {{"batch", 2}}});
  auto want = a.run({{"x", x}});
  auto got = b.run({{"x", x}});
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, t] : want) EXPECT_TRUE(got.at(name).same_as(t)) << name;
}

TEST(MappedBlobs, AModelWithMappedBlobsIsNotSaved) {
  test::TempDir dir;
  const fs::path compiled = test::compile_embedded(dir.path(), test::linear_model(64, 300, 5));
  model::Model mapped = model::load_model(compiled, {.map_blobs = true});
  EXPECT_THROW(model::save_model(mapped, dir / "again.onnx"), std::logic_error);
  EXPECT_FALSE(fs::exists(dir / "again.onnx"));
}

TEST(MappedBlobs, SmallBlobsAndOrdinaryModelsParseAsUsual) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "model.onnx");
  EXPECT_FALSE(model::lift_context_blobs(file_bytes(dir / "model.onnx"), 1).has_value());
  const fs::path compiled = test::compile_embedded(dir.path(), test::small_model());
  // (its blob is a few KiB, under the default threshold)
  const model::Model m = model::load_model(compiled, {.map_blobs = true});
  EXPECT_TRUE(m.mapped_strings.empty());
}

}  // namespace

// Model load/save: lossless, deterministic, external data honoured and written.
#include <gtest/gtest.h>

#include <cstring>

#include "base/error.h"
#include "base/native_file.h"
#include "model/external_data.h"
#include "model/model_io.h"
#include "support/model_builder.h"
#include "support/fifo.h"
#include "support/temp_dir.h"

using namespace winml;
using namespace winml::model;
using winml::test::make_model;
namespace fs = std::filesystem;

namespace {

Model in_memory(const onnx::ModelProto& p, const fs::path& where) {
  Model m;
  m.proto = p;
  m.path = where;
  return m;
}

std::vector<std::string> initializer_bytes(const Model& m) {
  std::vector<std::string> out;
  for (const auto& t : m.proto.graph().initializer()) {
    auto b = m.tensor_bytes(t);
    out.emplace_back(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size());
  }
  return out;
}

}  // namespace

TEST(ModelIo, SaveIsDeterministicAndLossless) {
  test::TempDir dir;
  auto proto = test::linear_model(64, 32);
  Model a = in_memory(proto, dir / "a.onnx"), b = in_memory(proto, dir / "b.onnx");
  save_model(a, dir / "a.onnx");
  save_model(b, dir / "b.onnx");
  EXPECT_EQ(test::read_text(dir / "a.onnx"), test::read_text(dir / "b.onnx"));
  EXPECT_FALSE(fs::exists(dir / "a.onnx.data"));

  Model loaded = load_model(dir / "a.onnx");
  EXPECT_EQ(serialize_deterministic(loaded.proto), serialize_deterministic(proto));
}

TEST(ModelIo, ReachingThresholdMovesWeightsToAlignedSidecar) {
  test::TempDir dir;
  auto proto = test::linear_model(512, 512);  // 1 MiB of weights
  Model original = in_memory(proto, dir / "m.onnx");
  auto expected = initializer_bytes(original);
  SaveOptions opts;
  opts.external_data_threshold = 512 * 1024;
  Model m = original;
  save_model(m, dir / "m.onnx", opts);
  ASSERT_TRUE(fs::exists(dir / "m.onnx.data"));
  EXPECT_LT(fs::file_size(dir / "m.onnx"), 4096u);

  Model loaded = load_model(dir / "m.onnx");
  EXPECT_EQ(initializer_bytes(loaded), expected);
  for (const auto& t : loaded.proto.graph().initializer()) {
    if (!is_external(t)) {
      EXPECT_LT(payload_size(t), 1024u) << t.name();
      continue;
    }
    auto ref = read_external_ref(t, "m.onnx");
    EXPECT_EQ(ref.location, "m.onnx.data");  // only its own sidecar
    EXPECT_EQ(ref.offset % (payload_size(t) >= kMiB ? 65536 : 64), 0u) << t.name();
  }
}

TEST(ModelIo, ExternalSaveIsDeterministic) {
  test::TempDir dir;
  SaveOptions opts;
  opts.external = ExternalData::kAlways;
  Model a = in_memory(test::linear_model(128, 64), dir / "a.onnx");
  Model b = in_memory(test::linear_model(128, 64), dir / "b.onnx");
  save_model(a, dir / "x" / "m.onnx", opts);
  save_model(b, dir / "y" / "m.onnx", opts);
  EXPECT_EQ(test::read_text(dir / "x" / "m.onnx"), test::read_text(dir / "y" / "m.onnx"));
  EXPECT_EQ(test::read_text(dir / "x" / "m.onnx.data"), test::read_text(dir / "y" / "m.onnx.data"));
}

TEST(ModelIo, HonoursForeignLocationOffsetLength) {
  test::TempDir dir;
  auto proto = test::linear_model(16, 8);
  Model original = in_memory(proto, dir / "m.onnx");
  auto expected = initializer_bytes(original);
  // Lay out the weights the way another tool might: a custom file name, gaps.
  std::string blob(37, '#');
  auto* graph = proto.mutable_graph();
  for (int i = 0; i < graph->initializer_size(); ++i) {
    auto* t = graph->mutable_initializer(i);
    std::uint64_t offset = blob.size();
    blob += t->raw_data();
    blob += std::string(11, '#');
    set_external_ref(*t, "weights/all.bin", offset, t->raw_data().size());
  }
  test::write_text(dir / "weights" / "all.bin", blob);
  test::write_text(dir / "m.onnx", serialize_deterministic(proto));

  Model loaded = load_model(dir / "m.onnx");
  EXPECT_EQ(initializer_bytes(loaded), expected);

  // Saved elsewhere, inline: the foreign file is no longer referenced.
  save_model(loaded, dir / "out" / "inline.onnx");
  Model again = load_model(dir / "out" / "inline.onnx");
  EXPECT_TRUE(again.external_files.empty());
  EXPECT_EQ(initializer_bytes(again), expected);
}

TEST(ModelIo, ResavingInPlaceAndShrinkingRemovesStaleSidecar) {
  test::TempDir dir;
  SaveOptions ext;
  ext.external = ExternalData::kAlways;
  // (Each model below reads the sidecar it saved, and lets go of it before
  // the next replaces or removes the file: Windows does neither to a file
  // this process has mapped.)
  std::vector<std::string> expected;
  {
    Model m = in_memory(test::linear_model(128, 64), dir / "m.onnx");
    expected = initializer_bytes(m);
    save_model(m, dir / "m.onnx", ext);
  }
  ASSERT_TRUE(fs::exists(dir / "m.onnx.data"));
  {
    Model loaded = load_model(dir / "m.onnx");
    save_model(loaded, dir / "m.onnx", ext);  // overwrite itself while reading from its own sidecar
  }
  EXPECT_EQ(initializer_bytes(load_model(dir / "m.onnx")), expected);
  {
    Model again = load_model(dir / "m.onnx");
    save_model(again, dir / "m.onnx");  // small: inline
  }
  EXPECT_FALSE(fs::exists(dir / "m.onnx.data"));
  EXPECT_EQ(initializer_bytes(load_model(dir / "m.onnx")), expected);
}

TEST(ModelIo, TypedFieldsReadAsLittleEndianBytes) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(3);
  t.add_float_data(1.0f);
  t.add_float_data(-2.5f);
  t.add_float_data(3.25f);
  auto b = inline_tensor_bytes(t);
  ASSERT_EQ(b.bytes.size(), 12u);
  float v[3];
  std::memcpy(v, b.bytes.data(), 12);
  EXPECT_EQ(v[1], -2.5f);
}

TEST(ModelIo, NewerOpsetsThanLibonnxKnowsStillLoad) {
  test::TempDir dir;
  Model m = in_memory(test::linear_model(4, 4, 1, /*opset=*/21), dir / "m.onnx");
  m.proto.set_ir_version(10);
  save_model(m, dir / "m.onnx");
  Model loaded = load_model(dir / "m.onnx");
  EXPECT_EQ(loaded.opset(), 21);
}

TEST(ModelIo, ModelOverTwoGiBLoadsAndSavesWithoutMaterialisingWeights) {
  test::TempDir dir;
  // Three 800 MB tensors in a sparse sidecar: 2.4 GB of weights, more than one
  // protobuf message can hold. Marker bytes at both ends of each tensor.
  const std::uint64_t n = 200'000'000, bytes = n * 4;
  test::GraphBuilder b("huge");
  b.input("x", {1});
  std::vector<std::string> names = {"w0", "w1", "w2"};
  const int fd = native::create(dir / "huge.onnx.data", native::Create::kReplace);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(native::truncate(fd, 3 * bytes));
  for (int i = 0; i < 3; ++i) {
    float head = 1.5f + i, tail = -2.5f - i;
    ASSERT_TRUE(native::write_all_at(fd, &head, 4, i * bytes));
    ASSERT_TRUE(native::write_all_at(fd, &tail, 4, i * bytes + bytes - 4));
  }
  native::close(fd);
  std::string prev = "x";
  for (int i = 0; i < 3; ++i) {
    auto* t = b.graph().add_initializer();
    t->set_name(names[i]);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(static_cast<std::int64_t>(n));
    set_external_ref(*t, "huge.onnx.data", i * bytes, bytes);
    b.node("Add", {prev, names[i]}, {"s" + std::to_string(i)});
    prev = "s" + std::to_string(i);
  }
  b.output(prev, {static_cast<std::int64_t>(n)});
  test::write_text(dir / "huge.onnx", serialize_deterministic(make_model(b.graph())));

  Model m = load_model(dir / "huge.onnx");
  EXPECT_GT(inline_size(m), std::uint64_t{1} << 31);
  SaveOptions never;
  never.external = ExternalData::kNever;
  Model copy = m;
  EXPECT_THROW(save_model(copy, dir / "inline.onnx", never), BuildError);

  save_model(m, dir / "out" / "huge.onnx");  // forced external: protobuf cannot hold it
  Model back = load_model(dir / "out" / "huge.onnx");
  ASSERT_EQ(back.external_files.size(), 1u);
  for (int i = 0; i < 3; ++i) {
    auto tb = back.tensor_bytes(back.proto.graph().initializer(i));
    ASSERT_EQ(tb.bytes.size(), bytes);
    float head, tail;
    std::memcpy(&head, tb.bytes.data(), 4);
    std::memcpy(&tail, tb.bytes.data() + bytes - 4, 4);
    EXPECT_EQ(head, 1.5f + i);
    EXPECT_EQ(tail, -2.5f - i);
  }
}

// `-o /dev/null` with a model big enough for a sidecar: the model goes into
// the stream whole, and no `<device>.data` is written beside it.
TEST(ModelIo, AModelForADeviceOrAPipeKeepsItsWeightsInsideAndLeavesNoSidecar) {
  test::TempDir dir;
  test::Fifo fifo(dir / "pipe");
  auto proto = test::linear_model(16, 8);
  Model m = in_memory(proto, dir / "m.onnx");
  SaveOptions opts;
  opts.external = ExternalData::kAlways;
  save_model(m, fifo.path(), opts);
  const std::string bytes = fifo.drain();
  ASSERT_FALSE(bytes.empty());
  EXPECT_FALSE(fs::exists(dir / "pipe.data"));
  EXPECT_FALSE(fs::exists(fifo.path().string() + ".data"));
  EXPECT_EQ(native::status(fifo.path()).kind, native::FileKind::kFifo);
  onnx::ModelProto read_back;
  ASSERT_TRUE(read_back.ParseFromString(bytes));
  for (const auto& t : read_back.graph().initializer()) EXPECT_FALSE(is_external(t)) << t.name();
  EXPECT_EQ(serialize_deterministic(read_back), serialize_deterministic(proto));
}

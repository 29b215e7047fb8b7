// The EPContext lifecycle on real exported models: ResNet-50 and ViT-B/16
// through the ref backend in both embed modes (loaded from another directory
// after the output directory is moved, outputs equal to the uncompiled
// model's in the runtime), the cpu backend against ONNX Runtime, and ONNX
// Runtime's own verdict on our EPContext nodes.
#include <gtest/gtest.h>

#include "support/compile_util.h"
#include "model/model_io.h"
#include "runtime/session.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

const runtime::Shape kImageShape{1, 3, 224, 224};

// The head's input (the class-token features) becomes an extra graph
// output, compiled into the blob like the rest, and compared with the
// logits (ViT's head is one small MatMul).
fs::path with_head_input_output(const fs::path& source, const fs::path& dir) {
  model::Model m = model::load_model(source);
  auto* graph = m.proto.mutable_graph();
  const auto& head = graph->node(graph->node_size() - 1);
  auto* out = graph->add_output();
  out->set_name(head.input(0));
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  fs::path path = dir / source.filename();
  model::save_model(m, path);
  return path;
}

// Compiles `source` with the ref backend, moves the output directory, and
// runs the moved model against the uncompiled one.
void expect_ref_roundtrip(const fs::path& source, bool embed, std::size_t expected_outputs,
                          const runtime::Shape& input_shape = kImageShape) {
  test::TempDir dir;
  std::vector<std::string> args = {"compile", "-m", source.string(), "-o", (dir / "build" / "compiled.onnx").string(),
                                   "--ep",    "ref"};
  if (embed) args.push_back("--embed");
  auto r = test::run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(fs::exists(dir / "build" / "compiled_ref.bin"), !embed);

  fs::rename(dir / "build", dir / "moved");
  auto x = test::random_input(input_shape, 17);
  auto expected = test::run_model(source, {{"input", x}});
  auto got = test::run_model(dir / "moved" / "compiled.onnx", {{"input", x}});
  ASSERT_EQ(got.size(), expected_outputs);
  for (const auto& [name, t] : expected) {
    ASSERT_TRUE(got.count(name)) << name;
    // The same kernels in the same order on the same shapes: the same bits.
    EXPECT_TRUE(t.same_as(got.at(name))) << name << " max abs diff "
                                         << test::max_abs_diff(runtime::to_tensor_file(t),
                                                               runtime::to_tensor_file(got.at(name)));
  }
}

}  // namespace

TEST(RefRealModels, ResNet50SidecarAndEmbedded) {
  auto source = test::exported_model("resnet50_op13");
  expect_ref_roundtrip(source, false, 1);
  expect_ref_roundtrip(source, true, 1);
}

TEST(RefRealModels, VitB16Sidecar) {
  test::TempDir dir;
  expect_ref_roundtrip(with_head_input_output(test::exported_model("vit_b_16_op17"), dir.path()), false, 2);
}

TEST(RefRealModels, VitB16Embedded) {
  // ~330 MB of plan inside one protobuf attribute: still far from 2 GiB.
  test::TempDir dir;
  expect_ref_roundtrip(with_head_input_output(test::exported_model("vit_b_16_op17"), dir.path()), true, 2);
}

class RefOtherModels : public ::testing::TestWithParam<const char*> {};

TEST_P(RefOtherModels, CompiledEqualsUncompiled) {
  std::string name = GetParam();
  runtime::Shape shape = name.starts_with("transformer") ? runtime::Shape{1, 16, 64} : kImageShape;
  expect_ref_roundtrip(test::exported_model(name), false, 1, shape);
}

INSTANTIATE_TEST_SUITE_P(Exported, RefOtherModels,
                         ::testing::Values("transformer_encoder_op13", "transformer_encoder_op17", "mobilenet_v2_op13",
                                           "mobilenet_v3_small_op17", "efficientnet_b0_op13"));

TEST(CpuRealModels, PreparedResNet50RunsInOrtLikeItsInput) {
  test::TempDir dir;
  auto source = test::exported_model("resnet50_op13");
  auto r = test::run_cli({"compile", "-m", source.string(), "-o", (dir / "compiled.onnx").string(), "--ep", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  model::Model prepared = model::load_model(dir / "compiled.onnx");
  EXPECT_GT(prepared.proto.graph().value_info_size(), 100);  // shapes inferred

  auto x = runtime::to_tensor_file(test::random_input(kImageShape, 23));
  auto original = test::run_in_ort(source, {{"input", x}});
  auto compiled = test::run_in_ort(dir / "compiled.onnx", {{"input", x}});
  ASSERT_TRUE(original.ok) << original.error;
  ASSERT_TRUE(compiled.ok) << compiled.error;
  ASSERT_EQ(compiled.outputs.size(), 1u);
  const auto& a = original.outputs.at("output");
  const auto& b = compiled.outputs.at("output");
  ASSERT_EQ(a.shape, b.shape);
  EXPECT_EQ(test::max_abs_diff(a, b), 0.0);
  EXPECT_GT(test::max_abs_diff(a, runtime::to_tensor_file(runtime::Tensor::zeros(a.dtype, a.shape))), 0.0);
}

TEST(CpuRealModels, OrtRefusesOurEpContextNodesWithItsOwnMessage) {
  // ORT parses the node against its EPContext schema and only then finds no
  // execution provider for it: the message proves the node is well formed.
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  for (const char* mode : {"", "--embed"}) {
    std::vector<std::string> args = {"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string(),
                                     "--ep",    "ref"};
    if (*mode) args.push_back(mode);
    ASSERT_EQ(test::run_cli(args).exit_code, 0);
    auto ort = test::run_in_ort(dir / "c.onnx", {{"x", runtime::to_tensor_file(test::random_input({1, 8}, 1))}});
    EXPECT_FALSE(ort.ok);
    EXPECT_NE(ort.error.find("EPContext node generated by 'WinmlMakeRefExecutionProvider' is not compatible with any "
                             "execution provider added to the session"),
              std::string::npos)
        << ort.error;
  }
}

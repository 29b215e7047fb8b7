// The runtime against ONNX Runtime (graph optimizations disabled) on real
// exported models.
//
// Agreement is measured relative to each output's scale: max|ours - ort| <=
// 1e-4 * max|ort|. Element-wise relative error is not a meaningful bound
// here: on ResNet-50 with random weights some logits are 1e-3 of the
// largest, and the float32 rounding both implementations accumulate over 50
// layers (different but equally valid summation orders) is about 3e-7 of the
// output scale, which on those small logits reads as 1e-4..1e-3
// element-wise.
#include <gtest/gtest.h>

#include <set>

#include <cmath>

#include "model/model_io.h"
#include "runtime/session.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;

namespace {

double scale_relative_diff(const model::TensorFile& a, const model::TensorFile& b) {
  if (a.shape != b.shape || a.dtype != onnx::TensorProto::FLOAT || b.dtype != onnx::TensorProto::FLOAT) return INFINITY;
  double diff = 0, scale = 0;
  for (std::int64_t i = 0; i < a.element_count(); ++i) {
    double x = a.as<float>()[i], y = b.as<float>()[i];
    if (std::isnan(x) != std::isnan(y)) return INFINITY;
    diff = std::max(diff, std::fabs(x - y));
    scale = std::max(scale, std::fabs(y));
  }
  return diff / std::max(scale, 1e-30);
}

// ViT's head is small next to its encoder (the exporter draws the weights
// torchvision leaves at zero from normal(0, 0.02)); the head's input (the
// final class-token features) is exposed as an extra graph output and
// compared too.
std::filesystem::path with_head_input_output(const std::filesystem::path& source, const test::TempDir& dir) {
  model::Model m = model::load_model(source);
  auto* graph = m.proto.mutable_graph();
  const auto& head = graph->node(graph->node_size() - 1);
  auto* out = graph->add_output();
  out->set_name(head.input(0));
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto path = dir / source.filename().string();
  model::save_model(m, path);
  return path;
}

void expect_matches_ort(const std::string& name, const std::vector<std::int64_t>& input_shape,
                        bool expose_head_input = false) {
  test::TempDir dir;
  auto path = test::exported_model(name);
  if (expose_head_input) path = with_head_input_output(path, dir);
  model::Model m = model::load_model(path);
  // As `winml-make run` and calibration plan it: Relus folded where nothing observes the values before them.
  runtime::Session session(m, {.observed = std::set<std::string>{}});
  model::TensorFile x = test::random_tensor(input_shape, 7);
  auto ours = session.run({{"input", runtime::from_tensor_file(x)}});
  auto ort = test::run_in_ort(path, {{"input", x}});
  ASSERT_TRUE(ort.ok) << ort.error;
  ASSERT_EQ(ours.size(), ort.outputs.size());
  for (const auto& [out_name, expected] : ort.outputs) {
    ASSERT_TRUE(ours.count(out_name)) << out_name;
    model::TensorFile got = runtime::to_tensor_file(ours.at(out_name));
    ASSERT_EQ(got.shape, expected.shape) << out_name;
    double diff = scale_relative_diff(got, expected);
    std::printf("%s %s: scale-relative diff %.3g\n", name.c_str(), out_name.c_str(), diff);
    EXPECT_LT(diff, 1e-4) << name << " output " << out_name << ": max abs diff " << test::max_abs_diff(got, expected);
    // Outputs must not be trivially zero (tests/model/exported_models_vary_test.cpp: nor constant).
    EXPECT_GT(test::max_abs_diff(got, runtime::to_tensor_file(runtime::Tensor::zeros(got.dtype, got.shape))), 0.0)
        << out_name;
  }
}

const std::vector<std::int64_t> kImage{1, 3, 224, 224};
const std::vector<std::int64_t> kSequence{1, 16, 64};

}  // namespace

TEST(RuntimeOracle, ResNet50Opset13) { expect_matches_ort("resnet50_op13", kImage); }
TEST(RuntimeOracle, ResNet50Opset17) { expect_matches_ort("resnet50_op17", kImage); }
TEST(RuntimeOracle, VitB16Opset13) { expect_matches_ort("vit_b_16_op13", kImage, true); }
TEST(RuntimeOracle, VitB16Opset17) { expect_matches_ort("vit_b_16_op17", kImage, true); }
TEST(RuntimeOracle, TransformerEncoderOpset13) { expect_matches_ort("transformer_encoder_op13", kSequence); }
TEST(RuntimeOracle, TransformerEncoderOpset17) { expect_matches_ort("transformer_encoder_op17", kSequence); }
TEST(RuntimeOracle, MobileNetV2Opset13) { expect_matches_ort("mobilenet_v2_op13", kImage); }
TEST(RuntimeOracle, MobileNetV3SmallOpset13) { expect_matches_ort("mobilenet_v3_small_op13", kImage); }
TEST(RuntimeOracle, MobileNetV3SmallOpset17) { expect_matches_ort("mobilenet_v3_small_op17", kImage); }
TEST(RuntimeOracle, EfficientNetB0Opset13) { expect_matches_ort("efficientnet_b0_op13", kImage); }
TEST(RuntimeOracle, BidirectionalLstmOpset13) { expect_matches_ort("lstm_op13", {1, 50, 40}); }
TEST(RuntimeOracle, BidirectionalGruOpset13) { expect_matches_ort("gru_op13", {1, 50, 40}); }

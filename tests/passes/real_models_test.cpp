// Optimized exported models compute what the originals compute, in ONNX
// Runtime (max |a - b| <= 1e-4 of the output's scale, on all-ones and seeded
// random inputs) and in winml-make's own runtime, pass libonnx's checker
// (opset <= 17), and never grow.
//
// Every model also exposes the input of its final node (the pooled
// features) as a graph output, and that is compared too. Element-wise
// relative error is no measure for values near zero: ONNX Runtime's own
// basic optimizer moves ViT's features by 8e-4 element-wise (1e-6 of their
// scale).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "model/model_io.h"
#include "pass_harness.h"
#include "runtime/session.h"
#include "support/cli_runner.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

struct Case {
  const char* model;
  std::vector<std::int64_t> input_shape;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.model; }

class RealModel : public ::testing::TestWithParam<Case> {};

std::map<std::string, model::TensorFile> inputs_for(const Case& c, bool random) {
  return {{"input", random ? test::random_tensor(c.input_shape, 1234) : test::ones(c.input_shape)}};
}

// The exported model plus its final node's input as an extra graph output.
fs::path with_features_output(const fs::path& source, const test::TempDir& dir, std::string& features) {
  model::Model m = model::load_model(source);
  auto* graph = m.proto.mutable_graph();
  auto* out = graph->add_output();
  features = graph->node(graph->node_size() - 1).input(0);
  out->set_name(features);
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  fs::path path = dir / "source" / source.filename();
  model::save_model(m, path);
  return path;
}

// max |a - b| / max |b| over each output, both models run by our runtime.
void expect_same_in_runtime(const fs::path& original, const fs::path& optimized, const Case& c) {
  model::Model a = model::load_model(original), b = model::load_model(optimized);
  runtime::Session sa(a), sb(b);
  auto x = runtime::from_tensor_file(test::random_tensor(c.input_shape, 99));
  auto ra = sa.run({{"input", x}});
  auto rb = sb.run({{"input", x}});
  ASSERT_EQ(ra.size(), rb.size());
  for (const auto& [name, want] : ra) {
    const auto& got = rb.at(name);
    ASSERT_EQ(got.shape(), want.shape()) << name;
    double diff = 0, scale = 0;
    for (std::int64_t i = 0; i < want.size(); ++i) {
      diff = std::max(diff, std::fabs(double(got.data<float>()[i]) - double(want.data<float>()[i])));
      scale = std::max(scale, std::fabs(double(want.data<float>()[i])));
    }
    EXPECT_LE(diff, 1e-4 * std::max(scale, 1e-30)) << "output " << name << " in winml-make's runtime";
  }
}

double scale_relative_diff(const model::TensorFile& got, const model::TensorFile& want) {
  double scale = 0;
  for (std::int64_t i = 0; i < want.element_count(); ++i)
    scale = std::max(scale, std::fabs(double(want.as<float>()[i])));
  return test::max_abs_diff(got, want) / std::max(scale, 1e-30);
}

void expect_close(const test::OrtResult& got, const test::OrtResult& want, const std::string& features,
                  const std::string& what) {
  ASSERT_TRUE(got.ok) << what << ": " << got.error;
  ASSERT_EQ(got.outputs.size(), want.outputs.size()) << what;
  for (const auto& [name, t] : want.outputs) {
    ASSERT_TRUE(got.outputs.count(name)) << what << ": output " << name << " is gone";
    // Against the output's scale: a logit near zero carries the rounding of
    // the large ones (an element-wise bound held only while the exported
    // ViT's logits were all zero).
    EXPECT_LE(scale_relative_diff(got.outputs.at(name), t), 1e-4) << what << ": output " << name;
  }
}

TEST_P(RealModel, BasicAndExtendedKeepOutputs) {
  const Case& c = GetParam();
  test::TempDir dir;
  std::string features;
  fs::path source = with_features_output(test::exported_model(c.model), dir, features);
  auto ones_ref = test::run_in_ort(source, inputs_for(c, false));
  auto random_ref = test::run_in_ort(source, inputs_for(c, true));
  ASSERT_TRUE(ones_ref.ok) << ones_ref.error;
  ASSERT_TRUE(random_ref.ok) << random_ref.error;

  for (const char* level : {"basic", "extended"}) {
    SCOPED_TRACE(level);
    model::Model m = model::load_model(source);
    passes::OptimizeOptions options;
    options.level = level;
    if (std::string(level) == "extended") options.ep = "cpu";  // enables com.microsoft Gelu
    auto report = passes::optimize_model(m, options);
    EXPECT_TRUE(report.fixed_point);
    // Never more nodes. (ResNet-50 exports with nothing left to do at basic:
    // the Identity nodes it lost here were the exporter's for biases all
    // zero, which BatchNorm's default statistics had made equal.)
    EXPECT_LE(report.nodes_after, report.nodes_before);
    fs::path out = dir / (std::string(level) + ".onnx");
    model::save_model(m, out);

    model::Model saved = model::load_model(out);
    if (std::string(level) == "basic") {
      std::set<std::string> domains;
      for (const auto& n : saved.proto.graph().node()) domains.insert(n.domain());
      EXPECT_EQ(domains, std::set<std::string>{""}) << "basic uses only standard ONNX ops";
    }
    if (saved.opset("") <= 17) test::expect_checker_accepts(out, saved.proto);

    expect_close(test::run_in_ort(out, inputs_for(c, false)), ones_ref, features, std::string(level) + " on ones");
    expect_close(test::run_in_ort(out, inputs_for(c, true)), random_ref, features,
                 std::string(level) + " on random input");
    expect_same_in_runtime(source, out, c);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Exported, RealModel,
    ::testing::Values(Case{"resnet50_op13", {1, 3, 224, 224}}, Case{"resnet50_op17", {1, 3, 224, 224}},
                      Case{"vit_b_16_op13", {1, 3, 224, 224}}, Case{"vit_b_16_op17", {1, 3, 224, 224}},
                      Case{"transformer_encoder_op13", {1, 16, 64}}, Case{"transformer_encoder_op17", {1, 16, 64}},
                      Case{"mobilenet_v3_small_op13", {1, 3, 224, 224}},
                      Case{"mobilenet_v3_small_op17", {1, 3, 224, 224}}),
    [](const auto& info) { return std::string(info.param.model); });

TEST(OptimizeCliRealModels, ExternalDataAtTheThresholdAndDeterministicBytes) {
  test::TempDir dir;
  for (int run = 0; run < 2; ++run) {
    auto r = test::run_cli({"optimize", "-m", test::exported_model("vit_b_16_op17").string(), "-o",
                            (dir / ("vit" + std::to_string(run)) / "optimized.onnx").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_TRUE(fs::exists(dir / "vit0" / "optimized.onnx.data")) << "ViT's ~330 MiB of weights go to the sidecar";
  EXPECT_LT(fs::file_size(dir / "vit0" / "optimized.onnx"), 1u << 20);
  EXPECT_EQ(test::read_text(dir / "vit0" / "optimized.onnx"), test::read_text(dir / "vit1" / "optimized.onnx"));
  EXPECT_EQ(test::read_text(dir / "vit0" / "optimized.onnx.data"),
            test::read_text(dir / "vit1" / "optimized.onnx.data"));

  // Optimizing the result again finds nothing left to do.
  auto again = test::run_cli(
      {"optimize", "-m", (dir / "vit0" / "optimized.onnx").string(), "-o", (dir / "again.onnx").string(), "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto report = nlohmann::json::parse(again.out);
  EXPECT_EQ(report["nodes_before"], report["nodes_after"]);
  for (const auto& [pass, n] : report["rewrites"].items())
    if (pass != "infer_shapes") {
      EXPECT_EQ(n, 0) << pass;
    }
  EXPECT_EQ(report["rounds"], 1);

  auto r = test::run_cli(
      {"optimize", "-m", test::exported_model("resnet50_op13").string(), "-o", (dir / "resnet.onnx").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir / "resnet.onnx.data")) << "ResNet-50 (97 MiB) stays below 100 MiB";
}

}  // namespace

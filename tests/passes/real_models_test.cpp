// Optimized exported models compute what the originals compute, in ONNX
// Runtime (max relative difference <= 1e-4 on all-ones and seeded random
// inputs), pass libonnx's checker (opset <= 17), and get smaller.
#include <gtest/gtest.h>

#include <set>

#include "model/model_io.h"
#include "pass_harness.h"
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

void expect_close(const test::OrtResult& got, const test::OrtResult& want, const std::string& what) {
  ASSERT_TRUE(got.ok) << what << ": " << got.error;
  ASSERT_EQ(got.outputs.size(), want.outputs.size()) << what;
  for (const auto& [name, t] : want.outputs) {
    ASSERT_TRUE(got.outputs.count(name)) << what << ": output " << name << " is gone";
    EXPECT_LE(test::max_relative_diff(got.outputs.at(name), t), 1e-4) << what << ": output " << name;
  }
}

}  // namespace

TEST_P(RealModel, BasicAndExtendedKeepOutputs) {
  const Case& c = GetParam();
  fs::path source = test::exported_model(c.model);
  test::TempDir dir;
  auto ones_ref = test::run_in_ort(source, inputs_for(c, false));
  auto random_ref = test::run_in_ort(source, inputs_for(c, true));
  ASSERT_TRUE(ones_ref.ok) << ones_ref.error;
  ASSERT_TRUE(random_ref.ok) << random_ref.error;

  for (const char* level : {"basic", "extended"}) {
    SCOPED_TRACE(level);
    model::Model m = model::load_model(source);
    passes::OptimizeOptions options;
    options.level = level;
    if (std::string(level) == "extended") options.target_ep = "cpu";  // enables com.microsoft Gelu
    auto report = passes::optimize_model(m, options);
    EXPECT_TRUE(report.fixed_point);
    EXPECT_LT(report.nodes_after, report.nodes_before);
    fs::path out = dir / (std::string(level) + ".onnx");
    model::save_model(m, out);

    model::Model saved = model::load_model(out);
    if (std::string(level) == "basic") {
      std::set<std::string> domains;
      for (const auto& n : saved.proto.graph().node()) domains.insert(n.domain());
      EXPECT_EQ(domains, std::set<std::string>{""}) << "basic uses only standard ONNX ops";
    }
    if (saved.opset("") <= 17) test::expect_checker_accepts(out, saved.proto);

    expect_close(test::run_in_ort(out, inputs_for(c, false)), ones_ref, std::string(level) + " on ones");
    expect_close(test::run_in_ort(out, inputs_for(c, true)), random_ref, std::string(level) + " on random input");
  }
}

INSTANTIATE_TEST_SUITE_P(Exported, RealModel,
                         ::testing::Values(Case{"resnet50_op13", {1, 3, 224, 224}},
                                           Case{"resnet50_op17", {1, 3, 224, 224}},
                                           Case{"vit_b_16_op13", {1, 3, 224, 224}},
                                           Case{"vit_b_16_op17", {1, 3, 224, 224}},
                                           Case{"transformer_encoder_op13", {1, 16, 64}},
                                           Case{"transformer_encoder_op17", {1, 16, 64}},
                                           Case{"mobilenet_v3_small_op13", {1, 3, 224, 224}},
                                           Case{"mobilenet_v3_small_op17", {1, 3, 224, 224}}),
                         [](const auto& info) { return std::string(info.param.model); });

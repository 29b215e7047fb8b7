// What quantization and validation did not do as asked is said, in the
// stage's report, its log and the build summary: an old opset upgraded,
// per-channel not possible, input sizes chosen for open dimensions, nothing
// quantized. Models are built here; ONNX Runtime runs the upgraded result.
#include <gtest/gtest.h>

#include <cstring>

#include "support/project.h"
#include "model/model_io.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

// x [N, 3, ?, 8] -> Conv 3x3 (pads 1) -> Relu -> y, at `opset`.
onnx::ModelProto conv_model(std::int64_t opset) {
  test::GraphBuilder b;
  b.input("x", {"N", 3, "", 8});
  b.output("y", {"N", 4, "", 8});
  b.initializer("W", {4, 3, 3, 3}, test::random_floats(4 * 3 * 3 * 3, 7));
  b.initializer("B", {4}, test::random_floats(4, 8));
  auto& conv = b.node("Conv", {"x", "W", "B"}, {"c"}, "conv");
  test::set_attr(conv, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"y"}, "relu");
  return test::make_model(b.graph(), opset, opset < 10 ? 4 : 8);
}

void write(Project& p, const onnx::ModelProto& m) {
  model::Model mm;
  mm.proto = m;
  model::save_model(mm, p.root() / "net.onnx");
}

nlohmann::json metrics(const nlohmann::json& report, const std::string& stage) {
  for (const auto& s : report["models"][0]["stages"])
    if (s["name"] == stage) return s.value("metrics", nlohmann::json::object());
  return nullptr;
}

bool has_warning(const nlohmann::json& m, const std::string& text) {
  for (const auto& w : m.value("warnings", nlohmann::json::array()))
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

const char* kConfig = "[model]\nname = \"net\"\nsource = \"net.onnx\"\n";

}  // namespace

TEST(QuantizeFallbacks, AnOpset9ModelIsUpgradedTo11QuantizedAndRunsInOnnxRuntime) {
  Project p;
  write(p, conv_model(9));
  p.write_config(std::string(kConfig) + "dims = { N = 1, \"x.2\" = 8 }\n");
  auto report = p.build();
  const auto q = metrics(report, "quantize");
  EXPECT_EQ(q["opset_upgraded_from"], 9) << q.dump(2);
  EXPECT_EQ(q["opset"], 11);
  EXPECT_GE(q["nodes_quantized"].get<int>(), 1);
  EXPECT_TRUE(q["warnings"].empty()) << q.dump(2);  // every dimension has a size
  EXPECT_NE(test::read_text(p.root() / "build/.winml-make/logs/net.quantize.log").find("upgraded opset 9 to 11"),
            std::string::npos);
  const auto quantized = model::load_model(p.out("net", "quantized.onnx"));
  EXPECT_EQ(quantized.opset(), 11);
  auto ort = test::run_in_ort(p.out("net", "quantized.onnx"), {{"x", test::random_tensor({1, 3, 8, 8}, 3)}});
  ASSERT_TRUE(ort.ok) << ort.error;
  EXPECT_EQ(ort.outputs.at("y").shape, (std::vector<std::int64_t>{1, 4, 8, 8}));
}

TEST(QuantizeFallbacks, PerChannelBelowOpset13IsAWarningAndTheReportSaysPerTensor) {
  Project p;
  write(p, conv_model(11));
  p.write_config(std::string(kConfig) + "dims = { N = 1, \"x.2\" = 8 }\n[quantize]\nper_channel = true\n");
  auto r = p.run({});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("    warning: quantize: per_channel = true needs opset 13"), std::string::npos) << r.out;
  const auto q = metrics(p.build(), "quantize");
  EXPECT_EQ(q["per_channel"], false) << q.dump(2);
  EXPECT_TRUE(has_warning(q, "weights were quantized per tensor")) << q.dump(2);
  // At opset 13 it is done, and nothing is said.
  write(p, conv_model(13));
  const auto q13 = metrics(p.build(), "quantize");
  EXPECT_EQ(q13["per_channel"], true) << q13.dump(2);
  EXPECT_FALSE(has_warning(q13, "per_channel")) << q13.dump(2);
}

TEST(QuantizeFallbacks, OpenDimensionsAreWarnedOnceAndAnIndexKeySetsAnUnnamedOne) {
  Project p;
  write(p, conv_model(13));
  p.write_config(kConfig);
  auto r = p.run({});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string dims = "no size given for input x dimension 0 (N), input x dimension 2 (unnamed)";
  EXPECT_NE(r.out.find("warning: quantize: " + dims + ": calibration used 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: compile: " + dims + ": validation used 1"), std::string::npos) << r.out;

  // "x.2" reaches the unnamed dimension; validation runs on the sizes given.
  p.write_config(std::string(kConfig) + "dims = { N = 2, \"x.2\" = 5 }\n");
  auto report = p.build();
  EXPECT_FALSE(metrics(report, "quantize").contains("warnings") && !metrics(report, "quantize")["warnings"].empty())
      << metrics(report, "quantize").dump(2);
  const auto c = metrics(report, "compile");
  EXPECT_FALSE(c.contains("warnings")) << c.dump(2);
  EXPECT_EQ(c["validation"]["inputs"]["x"], (std::vector<std::int64_t>{2, 3, 5, 8})) << c.dump(2);
  auto quiet = p.run({"--rebuild"});
  EXPECT_EQ(quiet.out.find("warning:"), std::string::npos) << quiet.out;
}

TEST(QuantizeFallbacks, AModelWithNothingToQuantizeSaysSo) {
  Project p;
  test::GraphBuilder b;
  b.input("x", {1, 8});
  b.output("y", {1, 8});
  b.node("Exp", {"x"}, {"y"}, "exp");
  write(p, test::make_model(b.graph(), 17));
  p.write_config(kConfig);
  auto r = p.run({});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("warning: quantize: no node was quantized"), std::string::npos) << r.out;
  // Outputs the float model gives unchanged have no finite SQNR: "identical", not "not measured".
  EXPECT_NE(r.out.find("SQNR y identical"), std::string::npos) << r.out;
  const auto q = metrics(p.build(), "quantize");
  EXPECT_TRUE(has_warning(q, "the model stays in float"));
  EXPECT_EQ(q["accuracy"][0]["identical"], true) << q.dump(2);
  // ... and meet any SQNR floor.
  EXPECT_EQ(p.run({"--rebuild", "--min-sqnr", "40"}).exit_code, 0);
}

// A zero weight makes y the bias whatever x is (as a zero-initialized head
// makes a random ViT's logits): no sample can show an error, so no figure.
TEST(QuantizeFallbacks, AnOutputThatNeverVariesIsNotCalledIdentical) {
  Project p;
  test::GraphBuilder b;
  b.input("x", {1, 8});
  b.output("y", {1, 4});
  b.initializer("W", {8, 4}, std::vector<float>(32, 0.0f));
  b.initializer("B", {4}, test::random_floats(4, 8));
  b.node("MatMul", {"x", "W"}, {"m"}, "matmul");
  b.node("Add", {"m", "B"}, {"y"}, "add");
  write(p, test::make_model(b.graph(), 17));
  p.write_config(kConfig);
  auto r = p.run({});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SQNR y not measured (constant output)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: quantize: output 'y' is constant over the 8 samples: no accuracy figure"),
            std::string::npos)
      << r.out;
  const auto q = metrics(p.build(), "quantize");
  EXPECT_EQ(q["accuracy"][0]["constant"], true) << q.dump(2);
  EXPECT_FALSE(q["accuracy"][0].contains("identical")) << q.dump(2);
  EXPECT_TRUE(q["accuracy"][0]["sqnr_db"].is_null()) << q.dump(2);

  // A floor cannot be met by an output nothing can be measured on, unless asked.
  auto strict = p.run({"--rebuild", "--min-sqnr", "40"});
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_NE(strict.err.find("output 'y' is constant over the 8 calibration samples, so its SQNR cannot be measured"),
            std::string::npos)
      << strict.err;
  EXPECT_EQ(p.run({"--min-sqnr", "40", "-D", "quantize.allow_constant_outputs=true"}).exit_code, 0);
}

TEST(QuantizeFallbacks, ValidationRunsOnTheFirstCalibrationSample) {
  // y = Log(x - 1): all-ones inputs give -inf, the calibration samples (x = 3) do not -- as a model whose
  // sample-rate input picks a branch runs only on real rates.
  Project p;
  test::GraphBuilder b;
  b.input("x", {1, 4});
  b.output("y", {1, 4});
  b.initializer("one", {1}, {1.0f});
  b.node("Sub", {"x", "one"}, {"d"}, "sub");
  b.node("Log", {"d"}, {"y"}, "log");
  write(p, test::make_model(b.graph(), 17));
  p.write_config(kConfig);
  auto ones = p.run({});
  EXPECT_NE(ones.exit_code, 0);
  EXPECT_NE(ones.err.find("has 0 NaN and 4 Inf values (of 4) on all-ones inputs"), std::string::npos) << ones.err;

  model::TensorFile three{onnx::TensorProto::FLOAT, {1, 4}, {}};
  const float values[4] = {3, 3, 3, 3};
  three.data.resize(sizeof values);
  std::memcpy(three.data.data(), values, sizeof values);
  for (const char* sample : {"calib/a", "calib/b"}) {
    fs::create_directories(p.root() / sample);
    model::write_npy(p.root() / sample / "x.npy", three);
  }
  p.write_config(std::string(kConfig) + "[quantize]\ncalibration_data = \"calib\"\n");
  auto report = p.build();
  const auto c = metrics(report, "compile");
  EXPECT_EQ(c["validation"]["fed"], "the first calibration sample in calib") << c.dump(2);
  // The samples enter the compile key: another first sample validates again.
  model::TensorFile two = three;
  const float twos[4] = {2, 2, 2, 2};
  std::memcpy(two.data.data(), twos, sizeof twos);
  model::write_npy(p.root() / "calib/a/x.npy", two);
  auto again = p.run({"--explain"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("completed  net/compile"), std::string::npos) << again.out;
}

TEST(QuantizeFallbacks, ACalibrationFailureFromSizesChosenForOpenDimensionsSaysSo) {
  Project p;
  test::GraphBuilder b;
  b.input("x", {1, 3, "", ""});
  b.output("y", {1, 3, "", ""});
  auto& pool = b.node("MaxPool", {"x"}, {"y"}, "pool");
  test::set_attr(pool, "kernel_shape", std::vector<std::int64_t>{3, 3});
  write(p, test::make_model(b.graph(), 13));
  p.write_config(kConfig);
  auto r = p.run({});
  EXPECT_NE(r.exit_code, 0) << r.out;
  // The runtime's error, then which sizes were chosen and how to set them (a quoted TOML key).
  EXPECT_NE(r.err.find("window is larger than the padded input (no size given for input x dimension 2 (unnamed), "
                       "input x dimension 3 (unnamed): calibration used 1; set sizes with [model] dims = { \"x.2\" = "
                       "<size> }"),
            std::string::npos)
      << r.err;
  p.write_config(std::string(kConfig) + "dims = { \"x.2\" = 8, \"x.3\" = 8 }\n");
  auto fixed = p.run({});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
}

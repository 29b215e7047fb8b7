// The quantizer on real exported torchvision models (random weights): the
// real CLI quantizes (calibrating on the project runtime), onnxruntime-node
// runs the float and quantized models on fresh inputs from the same
// distribution, and the SQNR of the outputs is checked and printed.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "model/model_io.h"
#include "quant/accuracy.h"
#include "quant/calibration/samples.h"
#include "support/quant_models.h"
#include "support/cli_runner.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

namespace winml::test {
namespace {

namespace fs = std::filesystem;

constexpr int kCalibrationSamples = 8;
constexpr int kEvaluationSamples = 3;

// Normal(0, 1) images, as normalised inputs are; evaluation uses other seeds.
std::vector<std::string> calibration_flags() {
  return {
      "--samples", std::to_string(kCalibrationSamples), "--distribution", "normal", "--value-range", "0", "1", "--seed",
      "1"};
}

std::vector<std::map<std::string, model::TensorFile>> fresh_inputs(const fs::path& model) {
  model::Model m = model::load_model(model);
  auto src =
      quant::generated_samples(kEvaluationSamples, quant::model_inputs(m.proto, {}, true), {"normal", 0.0, 1.0, 2024});
  std::vector<std::map<std::string, model::TensorFile>> r;
  for (std::size_t i = 0; i < src->size(); ++i) r.push_back(src->sample(i));
  return r;
}

struct Measured {
  double sqnr_db = -1;
  double max_abs_error = 0;
  nlohmann::json report;
};

// Quantizes `model` with the CLI and compares both models in ORT.
Measured quantize_and_measure(const fs::path& model, const std::vector<std::string>& flags, const fs::path& dir,
                              const std::string& name) {
  Measured m;
  fs::path out = dir / (name + ".onnx");
  std::vector<std::string> args = {"quantize", "-m", model.string(), "-o", out.string(), "--json", "--no-accuracy"};
  for (const auto& f : calibration_flags()) args.push_back(f);
  for (const auto& f : flags) args.push_back(f);
  CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return m;
  m.report = nlohmann::json::parse(r.out);
  quant::AccuracyMeter meter;
  for (const auto& feeds : fresh_inputs(model)) {
    OrtResult want = run_in_ort(model, feeds), got = run_in_ort(out, feeds);
    EXPECT_TRUE(want.ok) << want.error;
    EXPECT_TRUE(got.ok) << got.error;
    if (!want.ok || !got.ok) return m;
    for (const auto& [o, t] : want.outputs) meter.add(o, t, got.outputs.at(o));
  }
  // The worst output is the figure; every output is printed.
  m.sqnr_db = 1e9;
  for (const auto& row : meter.results()) {
    EXPECT_FALSE(row.constant) << name << ": output " << row.output << " is the same for every input";
    const double sqnr = row.sqnr_db.value_or(1e9);
    std::printf("[ result ] %-28s SQNR %6.2f dB  max abs error %.4g  (%s; calibration %.2f s, %d nodes quantized)\n",
                name.c_str(), sqnr, row.max_abs_error, row.output.c_str(),
                m.report["calibration_time_seconds"].get<double>(), m.report["nodes_quantized"].get<int>());
    if (sqnr < m.sqnr_db) m.sqnr_db = sqnr, m.max_abs_error = row.max_abs_error;
  }
  std::fflush(stdout);
  return m;
}

const std::vector<std::string> kW8A16 = {"--weight-type", "uint8", "--activation-type", "uint16", "--per-channel"};
const std::vector<std::string> kW8A8 = {"--weight-type", "int8", "--activation-type", "uint8", "--per-channel"};

// The floors sit below what was measured (docs/quantize.md), and above what
// rounding the weights alone costs these random networks in PyTorch (8-bit
// per output channel, BatchNorm folded, no activation quantization:
// benchmarks/quantize/weights_only_reference.py): ResNet-50 15.6 dB,
// MobileNetV3-Small 26.1 dB. They are deep random
// networks that amplify any perturbation, not a measure of trained ones.
TEST(RealModels, ResNet50) {
  TempDir d;
  fs::path model = exported_model("resnet50_op13");
  Measured a16 = quantize_and_measure(model, kW8A16, d.path(), "resnet50 w8a16");
  EXPECT_GE(a16.sqnr_db, 16.0);
  Measured a8 = quantize_and_measure(model, kW8A8, d.path(), "resnet50 w8a8");
  EXPECT_GE(a8.sqnr_db, 14.0);
  // ORT recognises every Conv group of the w8a8 model.
  OrtResult r = run_in_ort(d / "resnet50 w8a8.onnx", fresh_inputs(model)[0],
                           {.opt_level = "extended", .optimized_model = d / "opt.onnx"});
  ASSERT_TRUE(r.ok) << r.error;
  model::Model opt = model::load_model(d / "opt.onnx", {.validate = false});
  EXPECT_EQ(count_ops(opt.proto.graph(), "QLinearConv"), 53u);
  EXPECT_EQ(count_ops(opt.proto.graph(), "Conv"), 0u);
}

TEST(RealModels, MobileNetV3Small) {
  TempDir d;
  fs::path model = exported_model("mobilenet_v3_small_op13");
  Measured a16 = quantize_and_measure(model, kW8A16, d.path(), "mobilenet_v3_small w8a16");
  EXPECT_GE(a16.sqnr_db, 27.0);
  quantize_and_measure(model, kW8A8, d.path(), "mobilenet_v3_small w8a8");
}

// The encoder output (the head's input) is measured as well as the logits,
// added as a second model output: ViT's head is one small MatMul (drawn from
// normal(0, 0.02) by the exporter, where torchvision starts it at zero).
fs::path vit_with_encoder_output(const fs::path& dir) {
  model::Model m = model::load_model(exported_model("vit_b_16_op17"));
  auto& g = *m.proto.mutable_graph();
  const onnx::NodeProto* head = producer(g, g.output(0).name());
  EXPECT_NE(head, nullptr);
  auto* o = g.add_output();
  o->set_name(head->input(0));
  o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  fs::path out = dir / "vit_b_16_encoder_output.onnx";
  model::save_model(m, out);
  return out;
}

// Casts in ORT's optimized model beyond the model's own: ORT inserts them
// around nodes it cannot run in float16.
int ort_added_casts(const fs::path& model, const std::map<std::string, model::TensorFile>& feeds, const fs::path& dir) {
  OrtResult r = run_in_ort(model, feeds, {.opt_level = "disabled", .optimized_model = dir / "ort_view.onnx"});
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok) return -1;
  model::Model ours = model::load_model(model), ort = model::load_model(dir / "ort_view.onnx", {.validate = false});
  return static_cast<int>(count_ops(ort.proto.graph(), "Cast")) -
         static_cast<int>(count_ops(ours.proto.graph(), "Cast"));
}

TEST(RealModels, VitB16) {
  TempDir d;
  fs::path model = vit_with_encoder_output(d.path());
  Measured a16 = quantize_and_measure(model, kW8A16, d.path(), "vit_b_16 w8a16");
  EXPECT_GE(a16.sqnr_db, 35.0);
  quantize_and_measure(model, kW8A8, d.path(), "vit_b_16 w8a8");
  // float16: LayerNormalization and data movement run in float16 on ORT's CPU provider.
  Measured h = quantize_and_measure(model, {"--mode", "fp16"}, d.path(), "vit_b_16 fp16");
  EXPECT_GE(h.sqnr_db, 50.0);
  EXPECT_EQ(ort_added_casts(d / "vit_b_16 fp16.onnx", fresh_inputs(model)[0], d.path()), 0);
}

TEST(RealModels, ResNet50Fp16) {
  TempDir d;
  fs::path model = exported_model("resnet50_op13");
  Measured h = quantize_and_measure(model, {"--mode", "fp16"}, d.path(), "resnet50 fp16");
  EXPECT_GE(h.sqnr_db, 50.0);
  EXPECT_EQ(h.report["skipped_op_types"]["Conv"], 53);  // no float16 Conv kernel on ORT's CPU provider
  EXPECT_EQ(ort_added_casts(d / "resnet50 fp16.onnx", fresh_inputs(model)[0], d.path()), 0);
}

}  // namespace
}  // namespace winml::test

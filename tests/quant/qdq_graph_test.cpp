// QDQ placement on small real models, checked structurally and by running the
// quantized models in ONNX Runtime (onnxruntime-node) against the float model.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "base/error.h"
#include "model/model_io.h"
#include "model/validate.h"
#include "quant/accuracy.h"
#include "quant/bias_correction.h"
#include "support/quant_models.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

namespace winml::test {
namespace {

using onnx::TensorProto;

// SQNR (dB) of ORT's outputs for `quantized` against `reference` on one input.
double ort_sqnr(const model::Model& reference, const model::Model& quantized, const model::TensorFile& input,
                const std::string& input_name = "x") {
  TempDir d;
  model::Model a = reference, b = quantized;
  model::save_model(a, d / "float.onnx");
  model::save_model(b, d / "quant.onnx");
  OrtResult want = run_in_ort(d / "float.onnx", {{input_name, input}});
  OrtResult got = run_in_ort(d / "quant.onnx", {{input_name, input}});
  EXPECT_TRUE(want.ok) << want.error;
  EXPECT_TRUE(got.ok) << got.error;
  if (!want.ok || !got.ok) return -1;
  quant::AccuracyMeter meter;
  for (const auto& [name, t] : want.outputs) meter.add(name, t, got.outputs.at(name));
  return meter.results().at(0).sqnr_db.value_or(1e9);
}

// The value a node input gets after its DequantizeLinear.
const onnx::NodeProto* dq_feeding(const onnx::GraphProto& g, const onnx::NodeProto& n, int input) {
  const onnx::NodeProto* p = producer(g, n.input(input));
  return p && p->op_type() == "DequantizeLinear" ? p : nullptr;
}

class SmallCnn : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    float_model_ = new model::Model(in_memory(small_cnn()));
    // Without bias correction, so biases can be checked against the float ones.
    config::QuantizeConfig c = quant_config("int8", "uint8", true);
    c.bias_correction = false;
    result_ = new quant::QuantizeResult(quantize_with_ort(*float_model_, c));
  }
  static void TearDownTestSuite() {
    delete result_;
    delete float_model_;
  }
  static model::Model* float_model_;
  static quant::QuantizeResult* result_;
};
model::Model* SmallCnn::float_model_ = nullptr;
quant::QuantizeResult* SmallCnn::result_ = nullptr;

TEST_F(SmallCnn, StructureIsValidAndReluIsFolded) {
  const auto& g = result_->model.proto.graph();
  model::validate_structure(result_->model.proto, "quantized.onnx");
  EXPECT_EQ(count_ops(g, "Relu"), 0u);  // both folded into the preceding quantized node
  EXPECT_EQ(result_->report["folded_activations"], 2);
  // conv1 now writes relu1's output directly, and a QuantizeLinear reads it.
  const onnx::NodeProto* conv1 = node_named(g, "conv1");
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(conv1->output(0), "r1");
  ASSERT_EQ(consumers(g, "r1").size(), 1u);
  EXPECT_EQ(consumers(g, "r1")[0]->op_type(), "QuantizeLinear");
}

TEST_F(SmallCnn, ConvGroupsArePerChannelInt8WithInt32Bias) {
  const auto& g = result_->model.proto.graph();
  for (const std::string name : {"conv1", "conv2"}) {
    const onnx::NodeProto* conv = node_named(g, name);
    ASSERT_NE(conv, nullptr);
    // Activation input: Q -> DQ pair.
    const onnx::NodeProto* dq_x = dq_feeding(g, *conv, 0);
    ASSERT_NE(dq_x, nullptr);
    EXPECT_EQ(producer(g, dq_x->input(0))->op_type(), "QuantizeLinear");
    const TensorProto* x_scale = initializer(g, dq_x->input(1));
    ASSERT_NE(x_scale, nullptr);
    EXPECT_EQ(x_scale->dims_size(), 0);  // scalar
    EXPECT_EQ(initializer(g, dq_x->input(2))->data_type(), TensorProto::UINT8);
    // Weight: stored int8, a single DQ with axis 0 and one scale per output channel.
    const onnx::NodeProto* dq_w = dq_feeding(g, *conv, 1);
    ASSERT_NE(dq_w, nullptr);
    const TensorProto* wq = initializer(g, dq_w->input(0));
    ASSERT_NE(wq, nullptr) << "weight must be a quantized initializer, not a Q output";
    EXPECT_EQ(wq->data_type(), TensorProto::INT8);
    const TensorProto* w_scale = initializer(g, dq_w->input(1));
    ASSERT_EQ(w_scale->dims_size(), 1);
    EXPECT_EQ(w_scale->dims(0), 8);
    ASSERT_EQ(dq_w->attribute_size(), 1);
    EXPECT_EQ(dq_w->attribute(0).name(), "axis");
    EXPECT_EQ(dq_w->attribute(0).i(), 0);
    for (auto zp : ints_of(*initializer(g, dq_w->input(2)))) EXPECT_EQ(zp, 0);  // symmetric int8
    // Bias: int32, scale = input scale x weight scale, zero point 0.
    const onnx::NodeProto* dq_b = dq_feeding(g, *conv, 2);
    ASSERT_NE(dq_b, nullptr);
    EXPECT_EQ(dq_b->output(0), conv->input(2));
    const TensorProto* bq = initializer(g, dq_b->input(0));
    EXPECT_EQ(bq->data_type(), TensorProto::INT32);
    std::vector<float> bs = floats_of(*initializer(g, dq_b->input(1)));
    std::vector<float> ws = floats_of(*w_scale);
    float xs = floats_of(*x_scale)[0];
    ASSERT_EQ(bs.size(), ws.size());
    for (std::size_t c = 0; c < bs.size(); ++c) EXPECT_FLOAT_EQ(bs[c], xs * ws[c]);
    for (auto zp : ints_of(*initializer(g, dq_b->input(2)))) EXPECT_EQ(zp, 0);
    // The float bias reconstructs within half a step.
    std::vector<float> b_float = floats_of(*initializer(float_model_->proto.graph(), name == "conv1" ? "b1" : "b2"));
    std::vector<std::int64_t> b_int = ints_of(*bq);
    for (std::size_t c = 0; c < b_float.size(); ++c)
      EXPECT_NEAR(b_int[c] * double(bs[c]), b_float[c], 0.5 * bs[c] + 1e-7);
    // Output is quantized.
    ASSERT_EQ(consumers(g, conv->output(0)).size(), 1u);
    EXPECT_EQ(consumers(g, conv->output(0))[0]->op_type(), "QuantizeLinear");
  }
  EXPECT_EQ(initializer(g, "w1"), nullptr);  // float weights are gone
}

TEST_F(SmallCnn, GemmWeightUsesAxisZeroForTransB) {
  const auto& g = result_->model.proto.graph();
  const onnx::NodeProto* gemm = node_named(g, "gemm");
  ASSERT_NE(gemm, nullptr);
  const onnx::NodeProto* dq_w = dq_feeding(g, *gemm, 1);
  ASSERT_NE(dq_w, nullptr);
  EXPECT_EQ(dq_w->attribute(0).i(), 0);
  EXPECT_EQ(initializer(g, dq_w->input(1))->dims(0), 10);
  // The graph output keeps its name on the DequantizeLinear side.
  const onnx::NodeProto* out = producer(g, "y");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->op_type(), "DequantizeLinear");
}

TEST_F(SmallCnn, MaxPoolSharesItsInputParameters) {
  const auto& g = result_->model.proto.graph();
  const onnx::NodeProto* pool = node_named(g, "pool");
  const onnx::NodeProto* dq_in = dq_feeding(g, *pool, 0);
  ASSERT_NE(dq_in, nullptr);
  auto cons = consumers(g, pool->output(0));
  ASSERT_EQ(cons.size(), 1u);
  ASSERT_EQ(cons[0]->op_type(), "QuantizeLinear");
  EXPECT_EQ(cons[0]->input(1), dq_in->input(1));
  EXPECT_EQ(cons[0]->input(2), dq_in->input(2));
}

TEST_F(SmallCnn, ReportCountsNodes) {
  const auto& r = result_->report;
  EXPECT_EQ(r["nodes_quantized"], 8);  // all but Flatten
  EXPECT_EQ(r["nodes_skipped"], 1);
  EXPECT_EQ(r["skipped_op_types"]["Flatten"], 1);
  EXPECT_EQ(r["quantized_biases"], 3);
  EXPECT_TRUE(r["uncalibrated_tensors"].empty());
  ASSERT_EQ(r["accuracy"].size(), 1u);
  EXPECT_EQ(r["accuracy"][0]["output"], "y");
  EXPECT_GT(r["accuracy"][0]["sqnr_db"].get<double>(), 20.0);
  EXPECT_GE(r["calibration_time_seconds"].get<double>(), 0.0);
  // Building the plan is part of calibration's time.
  EXPECT_GT(r["calibration_setup_seconds"].get<double>(), 0.0);
  EXPECT_LE(r["calibration_setup_seconds"].get<double>(), r["calibration_time_seconds"].get<double>());
}

TEST_F(SmallCnn, OrtRunsItCloseToTheFloatModel) {
  double sqnr = ort_sqnr(*float_model_, result_->model, random_tensor({1, 3, 16, 16}, 99));
  EXPECT_GT(sqnr, 20.0);
}

TEST_F(SmallCnn, OrtFusesConvGroupsIntoQLinearConv) {
  TempDir d;
  model::Model q = result_->model;
  model::save_model(q, d / "q.onnx");
  OrtResult r = run_in_ort(d / "q.onnx", {{"x", random_tensor({1, 3, 16, 16}, 1)}},
                           {.opt_level = "extended", .optimized_model = d / "opt.onnx"});
  ASSERT_TRUE(r.ok) << r.error;
  model::Model opt = model::load_model(d / "opt.onnx", {.validate = false});
  EXPECT_EQ(count_ops(opt.proto.graph(), "QLinearConv"), 2u);
  EXPECT_EQ(count_ops(opt.proto.graph(), "Conv"), 0u);
}

TEST_F(SmallCnn, SameInputsGiveIdenticalBytes) {
  config::QuantizeConfig c = quant_config("int8", "uint8", true);
  c.bias_correction = false;
  quant::QuantizeResult again = quantize_with_ort(*float_model_, c);
  EXPECT_EQ(model::serialize_deterministic(again.model.proto), model::serialize_deterministic(result_->model.proto));
}

TEST_F(SmallCnn, AlreadyQuantizedIsRefusedUnlessRequantize) {
  model::Model q = result_->model;
  config::QuantizeConfig c = quant_config();
  try {
    quantize_with_ort(q, c);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("already quantized"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("requantize"), std::string::npos) << e.what();
  }
  c.requantize = true;
  quant::QuantizeResult again = quantize_with_ort(q, c);
  EXPECT_TRUE(again.report["requantized"].get<bool>());
  // Quantized once, not twice: the same number of Q/DQ as the first time.
  EXPECT_EQ(count_ops(again.model.proto.graph(), "QuantizeLinear"),
            count_ops(result_->model.proto.graph(), "QuantizeLinear"));
  EXPECT_EQ(count_ops(again.model.proto.graph(), "DequantizeLinear"),
            count_ops(result_->model.proto.graph(), "DequantizeLinear"));
  EXPECT_GT(ort_sqnr(*float_model_, again.model, random_tensor({1, 3, 16, 16}, 5)), 15.0);
}

TEST(QdqPlacement, SixteenBitActivationsUseMicrosoftDomain) {
  model::Model m = in_memory(small_cnn(17));
  quant::QuantizeResult r = quantize_with_ort(m, quant_config("uint8", "uint16", true));
  const auto& g = r.model.proto.graph();
  std::size_t ms = 0;
  for (const auto& n : g.node())
    if (n.op_type() == "QuantizeLinear" || n.op_type() == "DequantizeLinear") {
      EXPECT_EQ(n.domain(), "com.microsoft") << n.name();
      ++ms;
    }
  EXPECT_GT(ms, 0u);
  EXPECT_EQ(r.model.opset("com.microsoft"), 1);
  EXPECT_EQ(r.report["qdq_domain"], "com.microsoft");
  const onnx::NodeProto* conv = node_named(g, "conv1");
  EXPECT_EQ(initializer(g, producer(g, conv->input(0))->input(2))->data_type(), TensorProto::UINT16);
  const onnx::NodeProto* dq_w = producer(g, conv->input(1));
  EXPECT_EQ(initializer(g, dq_w->input(0))->data_type(), TensorProto::UINT8);
  // Asymmetric uint8 weights: per-channel zero points are not all 128.
  model::Model f = in_memory(small_cnn(17));
  double w8a16 = ort_sqnr(f, r.model, random_tensor({1, 3, 16, 16}, 7));
  quant::QuantizeResult a8 = quantize_with_ort(m, quant_config("uint8", "uint8", true));
  double w8a8 = ort_sqnr(f, a8.model, random_tensor({1, 3, 16, 16}, 7));
  EXPECT_GT(w8a16, w8a8);  // 16-bit activations are the more accurate
  EXPECT_GT(w8a16, 25.0);
}

TEST(QdqPlacement, SixteenBitUsesTheOnnxDomainFromOpset21) {
  // Opset 21 is newer than the linked ONNX's shape inference: types come
  // from the fallback propagation.
  model::Model m = in_memory(small_cnn(21));
  quant::QuantizeResult r = quantize_with_ort(m, quant_config("uint8", "uint16", true));
  const auto& g = r.model.proto.graph();
  EXPECT_EQ(r.report["qdq_domain"], "ai.onnx");
  EXPECT_EQ(r.report["nodes_quantized"], 8);
  for (const auto& n : g.node())
    if (n.op_type() == "QuantizeLinear" || n.op_type() == "DequantizeLinear") {
      EXPECT_EQ(n.domain(), "") << n.name();
    }
  EXPECT_EQ(r.model.opset("com.microsoft"), 0);
  EXPECT_GT(ort_sqnr(in_memory(small_cnn(21)), r.model, random_tensor({1, 3, 16, 16}, 7)), 25.0);
}

TEST(QdqPlacement, SymmetricActivationsKeepRelu) {
  model::Model m = in_memory(small_cnn());
  config::QuantizeConfig c = quant_config("int8", "int8", false);
  c.activation_symmetric = true;
  quant::QuantizeResult r = quantize_with_ort(m, c);
  const auto& g = r.model.proto.graph();
  EXPECT_EQ(count_ops(g, "Relu"), 2u);
  for (const auto& n : g.node())
    if (n.op_type() == "QuantizeLinear") {
      for (auto zp : ints_of(*initializer(g, n.input(2)))) EXPECT_EQ(zp, 0);
      EXPECT_EQ(initializer(g, n.input(2))->data_type(), TensorProto::INT8);
    }
  // Per tensor: one scalar weight scale.
  const onnx::NodeProto* dq_w = producer(g, node_named(g, "conv1")->input(1));
  EXPECT_EQ(initializer(g, dq_w->input(1))->dims_size(), 0);
  EXPECT_EQ(dq_w->attribute_size(), 0);
}

TEST(QdqPlacement, OpTypesAndExcludedNodesStayFloat) {
  model::Model m = in_memory(small_cnn());
  config::QuantizeConfig c = quant_config();
  c.op_types_to_quantize = {"Conv"};
  c.nodes_to_exclude = {"conv2"};
  quant::QuantizeResult r = quantize_with_ort(m, c);
  const auto& g = r.model.proto.graph();
  EXPECT_NE(producer(g, node_named(g, "conv1")->input(1))->op_type(), "Gemm");
  EXPECT_EQ(dq_feeding(g, *node_named(g, "conv1"), 1) != nullptr, true);
  EXPECT_EQ(dq_feeding(g, *node_named(g, "conv2"), 1), nullptr);  // excluded: float weight
  EXPECT_NE(initializer(g, "w2"), nullptr);
  EXPECT_EQ(dq_feeding(g, *node_named(g, "gemm"), 1), nullptr);  // Gemm not in op types
  EXPECT_NE(initializer(g, "w3"), nullptr);
  EXPECT_EQ(r.report["nodes_quantized"], 1);  // conv1 only
  EXPECT_EQ(count_ops(g, "Relu"), 2u);        // Relu is not among the op types: not folded
}

TEST(QdqPlacement, ReduceRangeKeepsWeightsInSevenBits) {
  model::Model m = in_memory(small_cnn());
  config::QuantizeConfig c = quant_config();
  c.reduce_range = true;
  quant::QuantizeResult r = quantize_with_ort(m, c);
  const auto& g = r.model.proto.graph();
  const onnx::NodeProto* dq_w = producer(g, node_named(g, "conv2")->input(1));
  for (auto v : ints_of(*initializer(g, dq_w->input(0)))) {
    ASSERT_GE(v, -64);
    ASSERT_LE(v, 64);
  }
}

TEST(QdqPlacement, OldOpsetFallsBackToPerTensorWeights) {
  model::Model m = in_memory(small_cnn(11));
  quant::QuantizeResult r = quantize_with_ort(m, quant_config("int8", "uint8", true));
  const auto& g = r.model.proto.graph();
  for (const auto& n : g.node())
    if (n.op_type() == "DequantizeLinear") {
      EXPECT_EQ(n.attribute_size(), 0) << n.name();
    }
  EXPECT_GT(ort_sqnr(in_memory(small_cnn(11)), r.model, random_tensor({1, 3, 16, 16}, 3)), 15.0);
}

TEST(QdqPlacement, MatMulWeightsPerChannelAndActivationProducts) {
  model::Model m = in_memory(small_attention());
  quant::QuantizeResult r = quantize_with_ort(m, quant_config("int8", "uint8", true));
  const auto& g = r.model.proto.graph();
  const onnx::NodeProto* proj = node_named(g, "proj");
  const onnx::NodeProto* dq_w = dq_feeding(g, *proj, 1);
  ASSERT_NE(dq_w, nullptr);
  EXPECT_EQ(dq_w->attribute(0).i(), 1);
  EXPECT_EQ(initializer(g, dq_w->input(1))->dims(0), 16);
  // Activation x activation MatMul: both inputs through Q/DQ pairs.
  const onnx::NodeProto* scores = node_named(g, "scores");
  for (int k = 0; k < 2; ++k) {
    const onnx::NodeProto* dq = dq_feeding(g, *scores, k);
    ASSERT_NE(dq, nullptr);
    EXPECT_EQ(producer(g, dq->input(0))->op_type(), "QuantizeLinear");
  }
  // The Add's constant is stored with the activation type, per tensor.
  const onnx::NodeProto* dq_b = dq_feeding(g, *node_named(g, "proj_bias"), 1);
  ASSERT_NE(dq_b, nullptr);
  EXPECT_EQ(initializer(g, dq_b->input(0))->data_type(), TensorProto::UINT8);
  // Transpose reuses its input's parameters.
  auto t_out = consumers(g, node_named(g, "transpose")->output(0));
  ASSERT_EQ(t_out.size(), 1u);
  EXPECT_EQ(t_out[0]->input(1), dq_feeding(g, *node_named(g, "transpose"), 0)->input(1));
  EXPECT_GT(ort_sqnr(in_memory(small_attention()), r.model, random_tensor({1, 4, 8}, 4)), 15.0);
}

TEST(QdqPlacement, ConvTransposeWeightUsesAxisOne) {
  model::Model m = in_memory(small_deconv());
  quant::QuantizeResult r = quantize_with_ort(m, quant_config("int8", "uint8", true));
  const auto& g = r.model.proto.graph();
  const onnx::NodeProto* dq_w = dq_feeding(g, *node_named(g, "deconv"), 1);
  ASSERT_NE(dq_w, nullptr);
  EXPECT_EQ(dq_w->attribute(0).i(), 1);
  EXPECT_EQ(initializer(g, dq_w->input(1))->dims(0), 6);
  EXPECT_EQ(initializer(g, dq_feeding(g, *node_named(g, "deconv"), 2)->input(0))->data_type(), TensorProto::INT32);
  EXPECT_GT(ort_sqnr(in_memory(small_deconv()), r.model, random_tensor({1, 4, 6, 6}, 8)), 20.0);
}

TEST(QdqPlacement, SharedBiasGetsOneInt32CopyPerConv) {
  // Exporters share identical constants (e.g. zero biases) between layers,
  // often through Identity nodes; each Conv needs a bias at its own scale.
  GraphBuilder b("shared");
  b.input("x", {1, 2, 6, 6});
  b.initializer("w1", {4, 2, 3, 3}, random_floats(72, 41));
  b.initializer("w2", {4, 4, 3, 3}, random_floats(144, 42));
  b.initializer("bias", {4}, {0.5f, -0.25f, 0.125f, 1.0f});
  b.node("Identity", {"bias"}, {"bias_alias"}, "alias");
  b.node("Conv", {"x", "w1", "bias"}, {"c1"}, "conv1");
  b.node("Mul", {"c1", "c1"}, {"sq"}, "square");  // a different input range for conv2
  b.node("Conv", {"sq", "w2", "bias_alias"}, {"y"}, "conv2");
  b.output("y", {1, 4, 2, 2});
  model::Model m = in_memory(make_model(b.graph()));
  config::QuantizeConfig c = quant_config();
  c.bias_correction = false;  // each copy then reconstructs the same float bias
  quant::QuantizeResult r = quantize_with_ort(m, c);
  const auto& g = r.model.proto.graph();
  EXPECT_EQ(count_ops(g, "Identity"), 0u);
  const onnx::NodeProto* b1 = dq_feeding(g, *node_named(g, "conv1"), 2);
  const onnx::NodeProto* b2 = dq_feeding(g, *node_named(g, "conv2"), 2);
  ASSERT_NE(b1, nullptr);
  ASSERT_NE(b2, nullptr);
  EXPECT_NE(b1->input(0), b2->input(0));
  for (const onnx::NodeProto* dq : {b1, b2}) {
    std::vector<float> s = floats_of(*initializer(g, dq->input(1)));
    std::vector<std::int64_t> q = ints_of(*initializer(g, dq->input(0)));
    const float want[4] = {0.5f, -0.25f, 0.125f, 1.0f};
    for (std::size_t c = 0; c < 4; ++c) EXPECT_NEAR(q[c] * double(s[c]), want[c], 0.5 * s[c] + 1e-7);
  }
  EXPECT_EQ(r.report["quantized_biases"], 2);
  EXPECT_GT(ort_sqnr(in_memory(make_model(b.graph())), r.model, random_tensor({1, 2, 6, 6}, 9)), 20.0);
}

// Mean error of ORT's output per channel (axis 1) over a few fresh inputs, and the SQNR.
std::pair<double, double> mean_error_and_sqnr(const model::Model& f, const model::Model& q,
                                              const std::vector<std::int64_t>& shape) {
  TempDir d;
  model::Model a = f, b = q;
  model::save_model(a, d / "f.onnx");
  model::save_model(b, d / "q.onnx");
  std::vector<double> sum;
  std::size_t count = 0;
  quant::AccuracyMeter meter;
  for (std::uint32_t s = 0; s < 4; ++s) {
    auto x = random_tensor(shape, 500 + s);
    OrtResult want = run_in_ort(d / "f.onnx", {{"x", x}}), got = run_in_ort(d / "q.onnx", {{"x", x}});
    EXPECT_TRUE(want.ok && got.ok);
    const auto& w = want.outputs.begin()->second;
    const auto& g = got.outputs.begin()->second;
    meter.add("y", w, g);
    std::int64_t channels = w.shape[1], inner = w.element_count() / channels;
    sum.resize(static_cast<std::size_t>(channels), 0.0);
    for (std::int64_t i = 0; i < w.element_count(); ++i)
      sum[static_cast<std::size_t>(i / inner % channels)] += double(g.as<float>()[i]) - double(w.as<float>()[i]);
    count += static_cast<std::size_t>(inner);
  }
  double worst = 0;
  for (double v : sum) worst = std::max(worst, std::fabs(v / double(count)));
  return {worst, *meter.results()[0].sqnr_db};
}

TEST(QdqPlacement, BiasCorrectionRemovesTheMeanOutputShift) {
  // Relu makes the Conv's input mean large next to its spread, so weight
  // rounding shifts every output channel by a constant (W_q - W) · E[x].
  GraphBuilder b("shift");
  b.input("x", {1, 16, 8, 8});
  b.initializer("w", {8, 16, 3, 3}, random_floats(8 * 16 * 9, 51));
  b.initializer("bias", {8}, random_floats(8, 52));
  b.node("Relu", {"x"}, {"r"}, "relu");
  auto& conv = b.node("Conv", {"r", "w", "bias"}, {"y"}, "conv");
  set_attr(conv, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  b.output("y", {1, 8, 8, 8});
  model::Model f = in_memory(make_model(b.graph()));
  config::QuantizeConfig c = quant_config("uint8", "uint16", true);
  c.samples = 4;
  c.op_types_to_quantize = {"Conv"};  // leave the Relu float: its output is the Conv input
  quant::QuantizeResult corrected = quantize_with_ort(f, c, false);
  c.bias_correction = false;
  quant::QuantizeResult plain = quantize_with_ort(f, c, false);
  EXPECT_EQ(corrected.report["corrected_biases"], 1);
  EXPECT_EQ(plain.report["corrected_biases"], 0);
  auto [shift_plain, sqnr_plain] = mean_error_and_sqnr(f, plain.model, {1, 16, 8, 8});
  auto [shift_corrected, sqnr_corrected] = mean_error_and_sqnr(f, corrected.model, {1, 16, 8, 8});
  EXPECT_LT(shift_corrected, shift_plain / 3) << shift_plain << " -> " << shift_corrected;
  EXPECT_GT(sqnr_corrected, sqnr_plain + 1.0) << sqnr_plain << " dB -> " << sqnr_corrected << " dB";
}

// output_shift against ONNX Runtime: the node itself, run with W_q - W as its
// weight on an input holding each channel's mean everywhere, outputs exactly
// the per-channel shift.
TEST(BiasCorrectionMath, OutputShiftMatchesTheNodeOnAMeanInput) {
  std::vector<float> w = random_floats(6 * 2 * 3 * 3, 61), wq = w;
  for (std::size_t i = 0; i < wq.size(); ++i) wq[i] += 0.01f * float(int(i % 7) - 3);
  std::vector<float> dw(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) dw[i] = wq[i] - w[i];
  std::vector<double> mu = {0.5, -1.0, 2.0, 0.25};  // 4 input channels, 2 groups of 2

  quant::PlannedCorrection conv;
  conv.kind = quant::PlannedCorrection::Kind::kConv;
  conv.group = 2;
  std::vector<double> shift = quant::output_shift(conv, w, wq, {6, 2, 3, 3}, mu);
  ASSERT_EQ(shift.size(), 6u);
  GraphBuilder b;
  b.input("x", {1, 4, 3, 3});
  b.initializer("dw", {6, 2, 3, 3}, dw);
  set_attr(b.node("Conv", {"x", "dw"}, {"y"}, "conv"), "group", std::int64_t{2});
  b.output("y", {1, 6, 1, 1});
  model::TensorFile x = ones({1, 4, 3, 3});
  for (std::size_t i = 0; i < 36; ++i) {
    float v = static_cast<float>(mu[i / 9]);
    std::memcpy(x.data.data() + 4 * i, &v, 4);
  }
  TempDir d;
  model::Model m = in_memory(make_model(b.graph()));
  model::save_model(m, d / "conv.onnx");
  OrtResult r = run_in_ort(d / "conv.onnx", {{"x", x}});
  ASSERT_TRUE(r.ok) << r.error;
  for (std::size_t o = 0; o < 6; ++o) EXPECT_NEAR(shift[o], r.outputs["y"].as<float>()[o], 1e-5) << o;

  // Gemm with transB and alpha: B is [N=3, K=4].
  quant::PlannedCorrection gemm;
  gemm.kind = quant::PlannedCorrection::Kind::kGemm;
  gemm.trans_b = true;
  gemm.alpha = 0.5f;
  std::vector<float> b_w(w.begin(), w.begin() + 12), b_q(wq.begin(), wq.begin() + 12),
      b_dw(dw.begin(), dw.begin() + 12);
  std::vector<double> gshift = quant::output_shift(gemm, b_w, b_q, {3, 4}, mu);
  GraphBuilder gb;
  gb.input("x", {1, 4});
  gb.initializer("dw", {3, 4}, b_dw);
  auto& g = gb.node("Gemm", {"x", "dw"}, {"y"}, "gemm");
  set_attr(g, "transB", std::int64_t{1});
  set_attr(g, "alpha", 0.5f);
  gb.output("y", {1, 3});
  model::TensorFile gx = ones({1, 4});
  for (std::size_t i = 0; i < 4; ++i) {
    float v = static_cast<float>(mu[i]);
    std::memcpy(gx.data.data() + 4 * i, &v, 4);
  }
  model::Model gm = in_memory(make_model(gb.graph()));
  model::save_model(gm, d / "gemm.onnx");
  OrtResult gr = run_in_ort(d / "gemm.onnx", {{"x", gx}});
  ASSERT_TRUE(gr.ok) << gr.error;
  ASSERT_EQ(gshift.size(), 3u);
  for (std::size_t n = 0; n < 3; ++n) EXPECT_NEAR(gshift[n], gr.outputs["y"].as<float>()[n], 1e-5) << n;

  // Shapes that do not fit leave the node uncorrected.
  EXPECT_TRUE(quant::output_shift(conv, w, wq, {6, 2, 3, 3}, {1.0, 2.0}).empty());
  EXPECT_TRUE(quant::output_shift(conv, w, wq, {6, 2, 3, 3}, {1.0, NAN, 1.0, 1.0}).empty());
}

TEST(QdqPlacement, EpContextInputIsRefused) {
  model::Model m = in_memory(epcontext_model("QNNExecutionProvider", 1, "blob"));
  m.path = "compiled.onnx";
  try {
    quantize_with_ort(m, quant_config());
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "compiled.onnx: Input model is a compiled EPContext artifact (EPContext nodes from "
              "QNNExecutionProvider). Run quantize on the original ONNX model before compilation.");
  }
}

}  // namespace
}  // namespace winml::test

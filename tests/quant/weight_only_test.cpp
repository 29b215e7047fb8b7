// Weight-only and 4-bit quantization of decoder language models: MatMulNBits
// (4 and 8 bits, symmetric and asymmetric, the tied LM head), blocked int4
// QDQ with 16-bit or float activations (the model converted to opset 21),
// each run by the runtime and by ONNX Runtime to the same outputs; RTN's
// scales and codes against their definition; the opset 21 conversion.
#include <gtest/gtest.h>

#include <cmath>

#include "base/error.h"
#include "config/config.h"
#include "model/model_io.h"
#include "model/tensor_data.h"
#include "quant/nbits_quant.h"
#include "quant/opset_upgrade.h"
#include "quant/quantize.h"
#include "runtime/session.h"
#include "support/cli_runner.h"
#include "support/decoder_models.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;

namespace {

config::QuantizeConfig wo_section(const nlohmann::json& keys) {
  return config::quantize_schema()->resolved(config::quantize_schema()->read(keys));
}

struct woQuantized {
  model::Model model;
  nlohmann::json report;
  test::TempDir dir;
  std::filesystem::path path;
};

std::unique_ptr<woQuantized> wo_quantize(const std::string& decoder, const nlohmann::json& keys) {
  auto q = std::make_unique<woQuantized>();
  const model::Model in = model::load_model(test::decoder_model(decoder));
  quant::QuantizeContext ctx;
  ctx.dims = test::decoder_dims();
  ctx.threads = 2;
  nlohmann::json with_samples = keys;
  with_samples["samples"] = 2;
  auto r = quant::quantize_model(in, wo_section(with_samples), ctx);
  q->path = q->dir / "quantized.onnx";
  model::save_model(r.model, q->path);
  q->model = model::load_model(q->path);
  q->report = r.report;
  return q;
}

std::size_t wo_count_ops(const model::Model& m, const std::string& op) {
  std::size_t n = 0;
  for (const auto& node : m.proto.graph().node()) n += node.op_type() == op;
  return n;
}

// The runtime and ONNX Runtime run the quantized model to the same outputs
// (max difference at most 1e-3 of each output's span).
void wo_expect_runtime_matches_ort(const woQuantized& q, bool with_cache) {
  const auto feeds = test::decoder_feeds(with_cache, {}, 9);
  std::map<std::string, runtime::Tensor> in;
  for (const auto& [name, t] : feeds) in.emplace(name, runtime::from_tensor_file(t));
  runtime::Session s(q.model, {.threads = 2, .dims = test::decoder_dims()});
  const auto ours = s.run(in);
  auto ort = test::run_in_ort(q.path, feeds);
  ASSERT_TRUE(ort.ok) << ort.error;
  for (const auto& [name, want] : ort.outputs) {
    const runtime::Tensor& got = ours.at(name);
    ASSERT_EQ(got.shape(), runtime::Shape(want.shape.begin(), want.shape.end())) << name;
    double diff = 0, lo = INFINITY, hi = -INFINITY;
    for (std::int64_t i = 0; i < got.size(); ++i) {
      const double w = want.as<float>()[i];
      diff = std::max(diff, std::fabs(static_cast<double>(got.data<float>()[i]) - w));
      lo = std::min(lo, w), hi = std::max(hi, w);
    }
    EXPECT_LE(diff, 1e-3 * (hi - lo)) << name << ": span " << hi - lo;
    std::printf("%s: max diff %.3g of span %.3g\n", name.c_str(), diff, hi - lo);
  }
}

double wo_logits_sqnr(const nlohmann::json& report) {
  for (const auto& row : report["accuracy"])
    if (row["output"] == "logits") return row["sqnr_db"].get<double>();
  ADD_FAILURE() << "no accuracy row for logits: " << report.dump();
  return 0;
}

}  // namespace

TEST(WeightOnly, SymmetricRtnScalesAndCodesAreTheirDefinition) {
  // One column of K = 40 in blocks of 16: the last block partial.
  std::vector<float> w(40);
  for (int k = 0; k < 40; ++k) w[static_cast<std::size_t>(k)] = static_cast<float>(k % 7 - 3) * 0.25f;
  w[5] = 1.4f;
  quant::NBitsOptions o;
  o.block_size = 16;
  const quant::NBitsWeight q = quant::quantize_nbits_weight(w.data(), 40, 1, false, o);
  ASSERT_EQ(q.scales.size(), 3u);
  ASSERT_EQ(q.codes.size(), 3u * 8);
  EXPECT_TRUE(q.zeros.empty());
  EXPECT_FLOAT_EQ(q.scales[0], 1.4f / 7);   // max |w| of the first block over 7
  EXPECT_FLOAT_EQ(q.scales[1], 0.75f / 7);  // |-0.75| is the largest in the second
  for (int k = 0; k < 40; ++k) {
    const int blk = k / 16, t = k % 16;
    const int code = (q.codes[static_cast<std::size_t>(blk * 8 + t / 2)] >> (4 * (t % 2))) & 15;
    const float scale = q.scales[static_cast<std::size_t>(blk)];
    EXPECT_EQ(code - 8, static_cast<int>(std::nearbyint(w[static_cast<std::size_t>(k)] / scale))) << k;
  }
}

TEST(WeightOnly, AsymmetricEightBitsAndTheTransposedLayoutAgree) {
  const std::int64_t k = 64, n = 3;
  std::vector<float> w = test::random_floats(static_cast<std::size_t>(k * n), 4), t(w.size());
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j < n; ++j) t[static_cast<std::size_t>(j * k + i)] = w[static_cast<std::size_t>(i * n + j)];
  quant::NBitsOptions o;
  o.bits = 8;
  o.symmetric = false;
  const auto a = quant::quantize_nbits_weight(w.data(), k, n, false, o);
  const auto b = quant::quantize_nbits_weight(t.data(), k, n, true, o);
  EXPECT_EQ(a.codes, b.codes);
  EXPECT_EQ(a.scales, b.scales);
  EXPECT_EQ(a.zeros, b.zeros);
  ASSERT_EQ(a.zeros.size(), static_cast<std::size_t>(n * 2));  // two blocks, a byte each
  // Every value comes back within half a step of its block.
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < k; ++i) {
      const std::size_t blk = static_cast<std::size_t>(j * 2 + i / 32);
      const float back = (static_cast<float>(a.codes[static_cast<std::size_t>(j * k + i)]) - a.zeros[blk]) * a.scales[blk];
      EXPECT_LE(std::fabs(back - w[static_cast<std::size_t>(i * n + j)]), a.scales[blk] * 0.5f + 1e-7f);
    }
}

TEST(WeightOnly, MatMulNBitsDecoderRunsAsOnnxRuntimeRunsIt) {
  auto q = wo_quantize("decoder_kv", {{"mode", "matmulnbits"}});
  // Seven projections per layer and the LM head; the two attention products read no constant.
  EXPECT_EQ(q->report["nodes_quantized"], 2 * 7 + 1);
  EXPECT_EQ(q->report["nodes_skipped"], 2 * 2);
  EXPECT_EQ(wo_count_ops(q->model, "MatMulNBits"), 15u);
  EXPECT_EQ(q->report["bits"], 4);
  EXPECT_EQ(q->report["weight_symmetric"], true);
  const double sqnr = wo_logits_sqnr(q->report);
  std::printf("int4 block-32 symmetric RTN: logits SQNR %.2f dB\n", sqnr);
  EXPECT_GT(sqnr, 15.0);
  wo_expect_runtime_matches_ort(*q, true);
}

TEST(WeightOnly, AsymmetricEightBitMatMulNBitsRunsAsOnnxRuntimeRunsIt) {
  auto q = wo_quantize("decoder_kv", {{"mode", "matmulnbits"}, {"bits", 8}, {"block_size", 128},
                                   {"weight_symmetric", false}, {"accuracy_level", 1}});
  EXPECT_EQ(wo_count_ops(q->model, "MatMulNBits"), 15u);
  for (const auto& n : q->model.proto.graph().node())
    if (n.op_type() == "MatMulNBits") {
      EXPECT_EQ(n.input_size(), 4) << "zero points expected";
    }
  EXPECT_GT(wo_logits_sqnr(q->report), 35.0);
  wo_expect_runtime_matches_ort(*q, true);
}

TEST(WeightOnly, TiedLmHeadIsQuantizedWhileTheEmbeddingLookupStaysFloat) {
  auto q = wo_quantize("decoder_tied", {{"mode", "matmulnbits"}});
  ASSERT_EQ(q->report["tied_embeddings"].size(), 1u);
  EXPECT_EQ(q->report["tied_embeddings"][0], "model.embed_tokens.weight");
  EXPECT_EQ(wo_count_ops(q->model, "Transpose"), 2u * 5);  // five per layer's attention; the head's is gone
  bool float_table = false;
  for (const auto& t : q->model.proto.graph().initializer())
    float_table |= t.name() == "model.embed_tokens.weight" && t.data_type() == onnx::TensorProto::FLOAT;
  EXPECT_TRUE(float_table);
  for (const auto& n : q->model.proto.graph().node())
    if (n.op_type() == "Gather" && n.output(0) == "embed_out") {
      EXPECT_EQ(n.input(0), "model.embed_tokens.weight");
    }
  wo_expect_runtime_matches_ort(*q, false);
}

TEST(WeightOnly, Int4QdqWithSixteenBitActivationsAtOpset21) {
  auto q = wo_quantize("decoder_kv", {{"weight_type", "int4"}, {"activation_type", "uint16"}});
  EXPECT_EQ(q->report["opset_upgraded_from"], 17);
  EXPECT_EQ(q->model.opset(), 21);
  std::size_t blocked = 0;
  for (const auto& n : q->model.proto.graph().node()) {
    if (n.op_type() != "DequantizeLinear") continue;
    EXPECT_TRUE(n.domain().empty());
    for (const auto& a : n.attribute()) blocked += a.name() == "block_size" && a.i() == 32;
  }
  EXPECT_EQ(blocked, 15u);
  std::size_t int4 = 0;
  for (const auto& t : q->model.proto.graph().initializer()) int4 += t.data_type() == model::kInt4;
  EXPECT_EQ(int4, 2u * 15);  // the weights and their (zero) zero points
  EXPECT_GT(wo_count_ops(q->model, "QuantizeLinear"), 0u);
  wo_expect_runtime_matches_ort(*q, true);
}

TEST(WeightOnly, Int4QdqWithFloatActivationsQuantizesOnlyWeights) {
  auto q = wo_quantize("decoder_kv", {{"weight_type", "int4"}, {"activation_type", "float32"}});
  EXPECT_EQ(wo_count_ops(q->model, "QuantizeLinear"), 0u);
  EXPECT_EQ(wo_count_ops(q->model, "DequantizeLinear"), 15u);
  EXPECT_EQ(q->report["nodes_quantized"], 15);
  EXPECT_EQ(q->report["calibration_time_seconds"].get<double>() < 1.0, true);
  EXPECT_GT(wo_logits_sqnr(q->report), 15.0);
  wo_expect_runtime_matches_ort(*q, true);
}

TEST(WeightOnly, Opset21ConversionMovesReduceAxesIntoAnInput) {
  test::GraphBuilder g;
  g.input("x", {2, 6});
  auto& r = g.node("ReduceMean", {"x"}, {"m"}, "mean");
  test::set_attr(r, "axes", std::vector<std::int64_t>{1});
  g.node("Sub", {"x", "m"}, {"y"}, "center");
  g.output("y", {2, 6});
  model::Model m;
  m.proto = test::make_model(g.graph(), 17);
  m.path = "reduce.onnx";
  model::Model up = m;
  quant::upgrade_to_opset21(up, "reduce.onnx");
  EXPECT_EQ(up.opset(), 21);
  EXPECT_EQ(up.proto.ir_version(), 10);
  EXPECT_EQ(up.proto.graph().node(0).input_size(), 2);
  EXPECT_EQ(up.proto.graph().node(0).attribute_size(), 0);  // axes gone
  const auto x = runtime::from_tensor_file(test::random_tensor({2, 6}, 1));
  runtime::Session a(m, {}), b(up, {});
  EXPECT_TRUE(a.run({{"x", x}}).at("y").same_as(b.run({{"x", x}}).at("y")));
}

TEST(WeightOnly, Opset21ConversionRefusesWhatChangedMeaning) {
  test::GraphBuilder g;
  g.input("x", {1, 8, 2});
  g.node("DFT", {"x"}, {"y"}, "dft");
  g.output("y", {1, 8, 2});
  model::Model m;
  m.proto = test::make_model(g.graph(), 17);
  try {
    quant::upgrade_to_opset21(m, "dft.onnx");
    FAIL() << "converted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dft.onnx: 4-bit weights need opset 21"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'dft' (DFT)"), std::string::npos) << e.what();
  }
  model::Model old;
  old.proto = test::make_model(g.graph(), 11);
  EXPECT_THROW(quant::upgrade_to_opset21(old, "old.onnx"), InputError);
}

namespace {

// SQNR (dB) of `candidate` against `reference` over one float output.
double wo_sqnr(const model::TensorFile& reference, const model::TensorFile& candidate) {
  double signal = 0, noise = 0;
  for (std::int64_t i = 0; i < reference.element_count(); ++i) {
    const double r = reference.as<float>()[i], d = r - candidate.as<float>()[i];
    signal += r * r;
    noise += d * d;
  }
  return 10 * std::log10(signal / noise);
}

// tests/fixtures/rtn_reference.py rounds the decoder's weights in NumPy; ONNX
// Runtime runs that float model and winml-make's MatMulNBits model to the same
// outputs, and both lose the same against the float model.
void wo_expect_numpy_reference(const std::string& decoder, const nlohmann::json& keys, bool asymmetric) {
  auto q = wo_quantize(decoder, keys);
  const std::filesystem::path source = test::decoder_model(decoder);
  const auto reference = q->dir / "rtn.onnx";
  std::vector<std::string> argv = {"/usr/bin/python3",
                                   (test::source_dir() / "tests" / "fixtures" / "rtn_reference.py").string(),
                                   source.string(), reference.string()};
  if (asymmetric) argv.push_back("--asymmetric");
  auto script = test::run_program(argv);
  ASSERT_EQ(script.exit_code, 0) << script.err;
  const bool cache = decoder == "decoder_kv";
  const auto feeds = test::decoder_feeds(cache, {}, 21);
  auto floats = test::run_in_ort(source, feeds), ours = test::run_in_ort(q->path, feeds),
       numpy = test::run_in_ort(reference, feeds);
  ASSERT_TRUE(floats.ok && ours.ok && numpy.ok) << floats.error << ours.error << numpy.error;
  const auto& logits = floats.outputs.at("logits");
  const double a = wo_sqnr(logits, ours.outputs.at("logits")), b = wo_sqnr(logits, numpy.outputs.at("logits"));
  std::printf("%s: logits SQNR, MatMulNBits %.3f dB, NumPy RTN %.3f dB\n", decoder.c_str(), a, b);
  EXPECT_NEAR(a, b, 0.05);
  EXPECT_GT(wo_sqnr(numpy.outputs.at("logits"), ours.outputs.at("logits")), 80.0);  // the same weights
}

}  // namespace

TEST(WeightOnly, NumPyRtnReferenceHoldsTheWeightsMatMulNBitsHolds) {
  wo_expect_numpy_reference("decoder_kv", {{"mode", "matmulnbits"}}, false);
}
TEST(WeightOnly, NumPyRtnReferenceAgreesAsymmetricWithATiedHead) {
  wo_expect_numpy_reference("decoder_tied", {{"mode", "matmulnbits"}, {"weight_symmetric", false}}, true);
}

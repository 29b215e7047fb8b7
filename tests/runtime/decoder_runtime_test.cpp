// Decoder language models on the runtime: the generated decoders (plain
// ONNX ops, KV cache with symbolic dimensions) against ONNX Runtime, and the
// plan that streams its weights (PlanOptions::stream_weights_above): no
// packed or dequantized copies, constant-only steps just before their
// readers, the outputs of the plan that packs.
#include <gtest/gtest.h>

#include <cmath>

#include "model/model_io.h"
#include "runtime/plan.h"
#include "runtime/session.h"
#include "support/decoder_models.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;

namespace {

std::map<std::string, runtime::Tensor> decoder_to_tensors(const std::map<std::string, model::TensorFile>& feeds) {
  std::map<std::string, runtime::Tensor> out;
  for (const auto& [name, t] : feeds) out.emplace(name, runtime::from_tensor_file(t));
  return out;
}

// max |a - b| over max |b|.
double decoder_span_relative(const runtime::Tensor& a, const runtime::Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  double diff = 0, scale = 0;
  for (std::int64_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(a.data<float>()[i]) - b.data<float>()[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(b.data<float>()[i])));
  }
  return diff / scale;
}

}  // namespace

TEST(DecoderRuntime, KvCacheDecoderMatchesOnnxRuntime) {
  const auto path = test::decoder_model("decoder_kv");
  const model::Model m = model::load_model(path);
  const test::DecoderDims d{.batch = 2, .sequence = 5, .past = 3};
  const auto feeds = test::decoder_feeds(true, d);
  runtime::Session s(m, {.dims = test::decoder_dims(d), .observed = std::set<std::string>{}});
  const auto ours = s.run(decoder_to_tensors(feeds));
  auto ort = test::run_in_ort(path, feeds);
  ASSERT_TRUE(ort.ok) << ort.error;
  ASSERT_EQ(ours.size(), 1 + 2 * test::kDecoderLayers);
  for (const auto& [name, want] : ort.outputs) {
    const runtime::Tensor& got = ours.at(name);
    EXPECT_LT(decoder_span_relative(got, runtime::from_tensor_file(want)), 1e-4) << name;
  }
  EXPECT_EQ(ours.at("logits").shape(), (runtime::Shape{2, 5, test::kDecoderVocab}));
  EXPECT_EQ(ours.at("present.1.value").shape(), (runtime::Shape{2, test::kDecoderHeads, 8, test::kDecoderHeadDim}));
}

TEST(DecoderRuntime, TiedEmbeddingDecoderMatchesOnnxRuntime) {
  const auto path = test::decoder_model("decoder_tied");
  const model::Model m = model::load_model(path);
  const auto feeds = test::decoder_feeds(false);
  runtime::Session s(m, {.dims = test::decoder_dims()});
  const auto ours = s.run(decoder_to_tensors(feeds));
  auto ort = test::run_in_ort(path, feeds);
  ASSERT_TRUE(ort.ok) << ort.error;
  EXPECT_LT(decoder_span_relative(ours.at("logits"), runtime::from_tensor_file(ort.outputs.at("logits"))), 1e-4);
}

TEST(DecoderRuntime, StreamedWeightsAreReadInPlaceWithTheOutputsOfPackedOnes) {
  const model::Model m = model::load_model(test::decoder_model("decoder_kv"));
  const auto feeds = decoder_to_tensors(test::decoder_feeds(true));
  runtime::Session packed(m, {.threads = 2, .dims = test::decoder_dims()});
  runtime::Session streamed(m, {.threads = 2, .dims = test::decoder_dims(), .stream_weights_above = 0});
  EXPECT_FALSE(runtime::streams_weights(m));
  EXPECT_TRUE(runtime::streams_weights(m, {.stream_weights_above = 0}));
  EXPECT_FALSE(packed.plan().packed.empty());
  EXPECT_TRUE(streamed.plan().packed.empty());
  std::size_t released = 0;
  for (const auto& step : streamed.plan().steps) released += step.release_pages.size();
  // The embedding (Gather), the final norm, the LM head and every layer's 7 weights and 2 norms.
  EXPECT_EQ(released, 3u + 2 * 9);
  const auto a = packed.run(feeds), b = streamed.run(feeds);
  for (const auto& [name, t] : a) EXPECT_LT(decoder_span_relative(b.at(name), t), 1e-5) << name;
  // Pages dropped after each step are read again on the next run.
  const auto again = streamed.run(feeds);
  for (const auto& [name, t] : b) EXPECT_TRUE(again.at(name).same_as(t)) << name;
  runtime::Session one_thread(m, {.threads = 1, .dims = test::decoder_dims(), .stream_weights_above = 0});
  const auto c = one_thread.run(feeds);
  for (const auto& [name, t] : b) EXPECT_TRUE(c.at(name).same_as(t)) << name;
}

// A weight's DequantizeLinear, first in the file, runs just before the
// MatMul that reads it when the plan streams (and first otherwise).
TEST(DecoderRuntime, ConstantOnlyStepsRunJustBeforeTheirReaderWhenStreaming) {
  test::GraphBuilder g;
  g.input("x", {1, 8});
  for (int i = 0; i < 3; ++i) {
    const std::string w = "w" + std::to_string(i);
    onnx::TensorProto& q = *g.graph().add_initializer();
    q.set_name(w + "_q");
    q.set_data_type(onnx::TensorProto::INT8);
    q.add_dims(8);
    q.add_dims(8);
    std::string bytes(64, '\0');
    for (int k = 0; k < 64; ++k) bytes[static_cast<std::size_t>(k)] = static_cast<char>((k * 7 + i * 13) % 11 - 5);
    q.set_raw_data(bytes);
    g.initializer(w + "_scale", {}, {0.5f});
    g.node("DequantizeLinear", {w + "_q", w + "_scale"}, {w}, "dq" + std::to_string(i));
  }
  g.node("MatMul", {"x", "w0"}, {"h0"}, "mm0");
  g.node("Relu", {"h0"}, {"r0"}, "relu0");
  g.node("MatMul", {"r0", "w1"}, {"h1"}, "mm1");
  g.node("MatMul", {"h1", "w2"}, {"y"}, "mm2");
  g.output("y", {1, 8});
  model::Model m;
  m.proto = test::make_model(g.graph(), 17);
  m.path = "qdq.onnx";
  auto names = [](const runtime::Plan& p) {
    std::vector<std::string> out;
    for (const auto& s : p.steps) out.push_back(s.node_name);
    return out;
  };
  runtime::Session streamed(m, {.stream_weights_above = 0});
  EXPECT_EQ(names(streamed.plan()),
            (std::vector<std::string>{"dq0", "mm0", "relu0", "dq1", "mm1", "dq2", "mm2"}));
  runtime::Session kept(m, {});
  EXPECT_EQ(names(kept.plan()), (std::vector<std::string>{"dq0", "dq1", "dq2", "mm0", "relu0", "mm1", "mm2"}));
  const auto feeds = std::map<std::string, runtime::Tensor>{
      {"x", runtime::from_tensor_file(test::random_tensor({1, 8}, 2))}};
  EXPECT_LT(decoder_span_relative(streamed.run(feeds).at("y"), kept.run(feeds).at("y")), 1e-6);
}

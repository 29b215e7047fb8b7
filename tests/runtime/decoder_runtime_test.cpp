// Decoder language models on the runtime: the generated decoders (plain
// ONNX ops, KV cache with symbolic dimensions) against ONNX Runtime.
#include <gtest/gtest.h>

#include <cmath>

#include "model/model_io.h"
#include "runtime/session.h"
#include "support/decoder_models.h"
#include "support/ort_oracle.h"

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

// Same binary, same model, same input: bit-identical outputs for any thread
// count and across runs (and with or without the memory plan).
#include <gtest/gtest.h>

#include "model/model_io.h"
#include "runtime/session.h"
#include "runtime/tensor_stats.h"
#include "support/temp_dir.h"

using namespace winml;

namespace {

runtime::Tensor run_once(const model::Model& m, const runtime::Tensor& x, int threads, bool memory_plan = true) {
  runtime::Session s(m, {.threads = threads, .memory_plan = memory_plan});
  auto out = s.run({{"input", x}});
  return out.at("output");
}

void expect_deterministic(const std::string& name, const runtime::Shape& shape = {1, 3, 224, 224}) {
  model::Model m = model::load_model(test::exported_model(name));
  runtime::Tensor x = runtime::filled_tensor(onnx::TensorProto::FLOAT, shape, runtime::Fill::kRandom, 11);
  runtime::Tensor reference = run_once(m, x, 1);
  EXPECT_GT(runtime::tensor_stats(reference).max, runtime::tensor_stats(reference).min);
  for (int threads : {2, 3, 4}) EXPECT_TRUE(run_once(m, x, threads).same_as(reference)) << threads << " threads";
  EXPECT_TRUE(run_once(m, x, 2, /*memory_plan=*/false).same_as(reference)) << "without the memory plan";
  runtime::Session s(m, {.threads = 4});
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(s.run({{"input", x}}).at("output").same_as(reference)) << "run " << i;
}

}  // namespace

TEST(Determinism, ResNet50) { expect_deterministic("resnet50_op13"); }
TEST(Determinism, MobileNetV3) { expect_deterministic("mobilenet_v3_small_op17"); }
TEST(Determinism, TransformerEncoder) { expect_deterministic("transformer_encoder_op17", {1, 16, 64}); }

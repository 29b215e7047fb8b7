// DequantizeLinear of constants folded when the plan is built
// (PlanOptions::fold_constant_dequantize): QDQ weights become float
// constants the Convs pack (and run through Winograd), with the bits of a
// float model holding the dequantized weights; a DequantizeLinear of a value
// known only at run time stays a step, and without the option nothing folds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "model/model.h"
#include "runtime/evaluate.h"
#include "runtime/session.h"
#include "support/model_builder.h"

using namespace winml;
using runtime::Tensor;

namespace {

constexpr std::int64_t kChannels = 16;

onnx::TensorProto& int8_initializer(test::GraphBuilder& b, const std::string& name, std::vector<std::int64_t> dims,
                                    std::uint32_t seed) {
  onnx::TensorProto& t = *b.graph().add_initializer();
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT8);
  std::int64_t n = 1;
  for (auto d : dims) t.add_dims(d), n *= d;
  std::string bytes(static_cast<std::size_t>(n), '\0');
  const auto r = test::random_floats(bytes.size(), seed);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(static_cast<std::int8_t>(r[i] * 127.0f));
  t.set_raw_data(bytes);
  return t;
}

// y = Conv(x, W) + DequantizeLinear(q_in): W either DequantizeLinear of int8
// weights (per channel, with a zero point) or `float_weights` as they are.
model::Model conv_model(const std::vector<float>* float_weights) {
  test::GraphBuilder b;
  b.input("x", {1, kChannels, 10, 10});
  b.input("q_in", {1, kChannels, 10, 10}, onnx::TensorProto::INT8);
  b.initializer("in_scale", {}, {0.05f});
  if (float_weights) {
    b.initializer("w", {kChannels, kChannels, 3, 3}, *float_weights);
  } else {
    int8_initializer(b, "w_q", {kChannels, kChannels, 3, 3}, 1);
    std::vector<float> scales(kChannels);
    for (std::int64_t c = 0; c < kChannels; ++c) scales[static_cast<std::size_t>(c)] = 0.01f + 0.001f * float(c);
    b.initializer("w_scale", {kChannels}, scales);
    int8_initializer(b, "w_zero", {kChannels}, 2);
    auto& dq = b.node("DequantizeLinear", {"w_q", "w_scale", "w_zero"}, {"w"}, "dq_w");
    test::set_attr(dq, "axis", std::int64_t{0});
  }
  auto& conv = b.node("Conv", {"x", "w"}, {"conv"}, "conv");
  test::set_attr(conv, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  b.node("DequantizeLinear", {"q_in", "in_scale", ""}, {"dq_in"}, "dq_in");  // read at run time: stays
  b.node("Add", {"conv", "dq_in"}, {"y"});
  b.output("y", {1, kChannels, 10, 10});
  model::Model m;
  m.proto = test::make_model(b.graph(), 13);
  m.path = "qdq.onnx";
  return m;
}

std::size_t steps_of(const runtime::Plan& plan, const std::string& op) {
  std::size_t n = 0;
  for (const auto& s : plan.steps) n += s.op_type == op;
  return n;
}

}  // namespace

TEST(DequantizeFolding, ConstantWeightsBecomeFloatConstantsTheConvPacks) {
  model::Model qdq = conv_model(nullptr);
  runtime::Session plain(qdq, {.threads = 2});
  runtime::Session folded(qdq, {.threads = 2, .fold_constant_dequantize = true});
  EXPECT_EQ(steps_of(plain.plan(), "DequantizeLinear"), 2u);
  EXPECT_EQ(steps_of(folded.plan(), "DequantizeLinear"), 1u) << "the one of a graph input stays";
  for (const auto& s : folded.plan().steps) {
    if (s.op_type == "Conv") {
      EXPECT_TRUE(s.kernel->prepacked_input(1));
    }
  }

  // The float twin: the weights the DequantizeLinear kernel computes, as an initializer.
  const onnx::NodeProto* dq = nullptr;
  for (const auto& n : qdq.proto.graph().node())
    if (n.name() == "dq_w") dq = &n;
  ASSERT_NE(dq, nullptr);
  std::vector<Tensor> in;
  for (const auto& name : dq->input())
    for (const auto& t : qdq.proto.graph().initializer())
      if (t.name() == name) in.push_back(runtime::from_proto(t));
  const Tensor w = runtime::evaluate_node(*dq, 13, in).at(0);
  const std::vector<float> weights(w.data<float>(), w.data<float>() + w.size());
  model::Model twin_model = conv_model(&weights);
  runtime::Session twin(twin_model, {.threads = 2});

  const auto x = test::random_floats(kChannels * 100, 3);
  std::vector<std::int8_t> q(kChannels * 100);
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = static_cast<std::int8_t>(i % 61 - 30);
  const std::map<std::string, Tensor> feeds{
      {"x", Tensor::from_vector<float>(onnx::TensorProto::FLOAT, {1, kChannels, 10, 10}, x)},
      {"q_in", Tensor::from_vector<std::int8_t>(onnx::TensorProto::INT8, {1, kChannels, 10, 10}, q)}};
  const Tensor want = twin.run(feeds).at("y");
  const Tensor got = folded.run(feeds).at("y");
  ASSERT_EQ(got.shape(), want.shape());
  EXPECT_EQ(std::memcmp(got.raw(), want.raw(), want.bytes()), 0);
  // (and close to the plan that dequantizes on every run, whose Conv is
  // direct, not Winograd: rounding apart, relative to each value)
  const Tensor slow = plain.run(feeds).at("y");
  for (std::int64_t i = 0; i < want.size(); ++i) {
    const float v = want.data<float>()[i];
    ASSERT_NEAR(slow.data<float>()[i], v, 1e-4f * std::max(1.0f, std::fabs(v))) << i;
  }
}

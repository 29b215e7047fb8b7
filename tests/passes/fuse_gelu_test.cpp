// fuse_gelu: ONNX Gelu from opset 20; com.microsoft Gelu/FastGelu below that,
// only for an EP whose table lists them.
#include <gtest/gtest.h>

#include <cmath>

#include "pass_harness.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::count_op;

namespace {
enum class Grouping { kXTimesATimesHalf, kHalfXTimesA, kXTimesHalfA };

onnx::ModelProto erf_gelu(std::int64_t opset, Grouping g, bool div_form = true) {
  test::GraphBuilder b;
  b.input("x", {2, 16});
  b.initializer("sqrt2", {}, {div_form ? 1.4142135f : 0.70710678f});
  b.initializer("one", {}, {1.0f});
  b.initializer("half", {}, {0.5f});
  b.node(div_form ? "Div" : "Mul", {"x", "sqrt2"}, {"t"});
  b.node("Erf", {"t"}, {"e"});
  b.node("Add", {"one", "e"}, {"a"});
  switch (g) {
    case Grouping::kXTimesATimesHalf:
      b.node("Mul", {"x", "a"}, {"m"});
      b.node("Mul", {"m", "half"}, {"y"});
      break;
    case Grouping::kHalfXTimesA:
      b.node("Mul", {"half", "x"}, {"h"});
      b.node("Mul", {"h", "a"}, {"y"});
      break;
    case Grouping::kXTimesHalfA:
      b.node("Mul", {"a", "half"}, {"ah"});
      b.node("Mul", {"x", "ah"}, {"y"});
      break;
  }
  b.output("y", {2, 16});
  return test::make_model(b.graph(), opset);
}

onnx::ModelProto tanh_gelu(std::int64_t opset) {
  test::GraphBuilder b;
  b.input("x", {2, 16});
  b.initializer("three", {}, {3.0f});
  b.initializer("c", {}, {0.044715f});
  b.initializer("k", {}, {static_cast<float>(std::sqrt(2.0 / M_PI))});
  b.initializer("one", {}, {1.0f});
  b.initializer("half", {}, {0.5f});
  b.node("Pow", {"x", "three"}, {"p"});
  b.node("Mul", {"p", "c"}, {"q"});
  b.node("Add", {"x", "q"}, {"r"});
  b.node("Mul", {"r", "k"}, {"s"});
  b.node("Tanh", {"s"}, {"t"});
  b.node("Add", {"t", "one"}, {"a"});
  b.node("Mul", {"x", "a"}, {"m"});
  b.node("Mul", {"m", "half"}, {"y"});
  b.output("y", {2, 16});
  return test::make_model(b.graph(), opset);
}
}  // namespace

TEST(FuseGelu, FusesEveryGroupingToOnnxGeluAtOpset20) {
  for (auto g : {Grouping::kXTimesATimesHalf, Grouping::kHalfXTimesA, Grouping::kXTimesHalfA})
    for (bool div_form : {true, false}) {
      auto model = erf_gelu(20, g, div_form);
      auto o = test::optimize_with(model, {"fuse_gelu"});
      ASSERT_EQ(o.model.proto.graph().node_size(), 1);
      EXPECT_EQ(o.model.proto.graph().node(0).op_type(), "Gelu");
      EXPECT_EQ(o.model.proto.graph().node(0).domain(), "");
      test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 16}, 5)}}, 1e-5);
    }
}

TEST(FuseGelu, TanhFormBecomesApproximateGelu) {
  auto model = tanh_gelu(20);
  auto o = test::optimize_with(model, {"fuse_gelu"});
  ASSERT_EQ(o.model.proto.graph().node_size(), 1);
  EXPECT_EQ(o.model.proto.graph().node(0).op_type(), "Gelu");
  EXPECT_EQ(o.model.proto.graph().node(0).attribute(0).s(), "tanh");
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 16}, 5)}}, 1e-4);
}

TEST(FuseGelu, UsesContribGeluOnlyForAnEpThatRunsIt) {
  auto model = erf_gelu(17, Grouping::kXTimesATimesHalf);
  auto none = test::optimize_with(model, {"fuse_gelu"});
  EXPECT_EQ(count_op(none.model.proto.graph(), "Erf"), 1) << "no target EP: decomposition kept";
  auto qnn_like = test::optimize_with(model, {"fuse_gelu"}, "vitisai");
  EXPECT_EQ(count_op(qnn_like.model.proto.graph(), "Erf"), 1) << "vitisai's table has no com.microsoft Gelu";

  auto cpu = test::optimize_with(model, {"fuse_gelu"}, "cpu");
  ASSERT_EQ(cpu.model.proto.graph().node_size(), 1);
  EXPECT_EQ(cpu.model.proto.graph().node(0).domain(), "com.microsoft");
  EXPECT_EQ(cpu.model.proto.graph().node(0).op_type(), "Gelu");
  EXPECT_EQ(cpu.model.opset("com.microsoft"), 1);
  test::expect_same_outputs(model, cpu.model.proto, {{"x", test::random_tensor({2, 16}, 5)}}, 1e-5);

  auto fast = test::optimize_with(tanh_gelu(17), {"fuse_gelu"}, "cpu");
  ASSERT_EQ(fast.model.proto.graph().node_size(), 1);
  EXPECT_EQ(fast.model.proto.graph().node(0).op_type(), "FastGelu");
  test::expect_same_outputs(tanh_gelu(17), fast.model.proto, {{"x", test::random_tensor({2, 16}, 5)}}, 1e-4);
}

TEST(FuseGelu, IgnoresLookalikesWithOtherConstants) {
  auto model = erf_gelu(20, Grouping::kXTimesATimesHalf);
  model.mutable_graph()->mutable_initializer(2)->set_raw_data(std::string("\x00\x00\x00\x40", 4));  // one -> 2.0
  auto o = test::optimize_with(model, {"fuse_gelu"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Gelu"), 0);
}
